export { startTestSite } from "./test-site.js";
export type { TestSite } from "./test-site.js";
export {
  DEVICE_STORAGE_KEY,
  DEVICE_STORAGE_VALUE,
  SESSION_COOKIE,
  SITE_PASSWORD,
  SITE_USERNAME,
} from "./auth-pages.js";
export {
  LONG_PAGE_BOTTOM_TEXT,
  NEW_TAB_TEXT,
  ORDER_SIZES,
  PRODUCT_PAGES,
  PRODUCTS_PER_PAGE,
} from "./demo-pages.js";

import { escapeHtml, page } from "./html.js";

export const PRODUCT_PAGES = 3;
export const PRODUCTS_PER_PAGE = 5;
export const ORDER_SIZES = ["Small", "Medium", "Large"] as const;
export const NEW_TAB_TEXT = "You found the purple giraffe";
export const LONG_PAGE_BOTTOM_TEXT = "You reached the bottom of the long page";

export function indexPage(): string {
  const links: Array<[string, string]> = [
    ["/login", "Sign in"],
    ["/account", "Account"],
    ["/products", "Products"],
    ["/order", "Order form"],
    ["/frame", "Page with an iframe"],
    ["/shadow", "Page with a shadow root"],
    ["/new-tab", "New tab link"],
    ["/long", "Long page"],
    ["/echo", "Echo"],
  ];
  return page(
    "Test site",
    `<ul>${links.map(([href, text]) => `<li><a href="${href}">${text}</a></li>`).join("")}</ul>`,
  );
}

/** Products are numbered 1..15; page N lists (N-1)*5+1 .. N*5. */
export function productsPage(pageNumber: number): string {
  const first = (pageNumber - 1) * PRODUCTS_PER_PAGE + 1;
  const items = Array.from({ length: PRODUCTS_PER_PAGE }, (_, i) => first + i)
    .map((n) => `<li>Product ${n} - $${n * 10}</li>`)
    .join("");
  const prev = pageNumber > 1 ? `<a href="/products?page=${pageNumber - 1}">Previous page</a>` : "";
  const next = pageNumber < PRODUCT_PAGES ? `<a href="/products?page=${pageNumber + 1}">Next page</a>` : "";
  return page(
    `Products - page ${pageNumber} of ${PRODUCT_PAGES}`,
    `<ul>${items}</ul>\n<p>${prev} ${next}</p>`,
  );
}

export function orderPage(): string {
  const options = ORDER_SIZES.map((s) => `<option value="${s.toLowerCase()}">${s}</option>`).join("");
  return page(
    "Order",
    `<form method="post" action="/order">
  <label>Size <select name="size">${options}</select></label>
  <button type="submit">Place order</button>
</form>`,
  );
}

export function orderConfirmationPage(sizeValue: string): string {
  const size = ORDER_SIZES.find((s) => s.toLowerCase() === sizeValue);
  return page("Order confirmed", `<p>Order confirmed: ${escapeHtml(size ?? "unknown size")}</p>`);
}

/** frameOrigin: where the inner document is served from (another port makes it cross-origin). */
export function framePage(frameOrigin: string): string {
  return page(
    "Page with an iframe",
    `<p>Outside the frame</p>
<iframe src="${frameOrigin}/frame/inner" title="Inner frame" width="400" height="200"></iframe>`,
  );
}

export function frameInnerPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Inner frame</title></head>
<body>
<input type="text" name="frame-note" placeholder="Frame note">
<button type="button" id="frame-button">Press inside frame</button>
<p id="frame-status">Frame button not pressed</p>
<script>
  document.getElementById("frame-button").addEventListener("click", () => {
    const note = document.querySelector("input").value;
    document.getElementById("frame-status").textContent = "Frame button pressed with: " + note;
  });
</script>
</body></html>
`;
}

export function shadowPage(): string {
  return page(
    "Page with a shadow root",
    `<shadow-widget></shadow-widget>
<script>
  customElements.define("shadow-widget", class extends HTMLElement {
    connectedCallback() {
      const root = this.attachShadow({ mode: "open" });
      root.innerHTML =
        '<input type="text" name="shadow-note" placeholder="Shadow note">' +
        '<button type="button">Press inside shadow</button>' +
        '<p id="shadow-status">Shadow button not pressed</p>';
      root.querySelector("button").addEventListener("click", () => {
        root.getElementById("shadow-status").textContent =
          "Shadow button pressed with: " + root.querySelector("input").value;
      });
    }
  });
</script>`,
  );
}

export function newTabPage(): string {
  return page("New tab link", `<a href="/tab-target" target="_blank">Open the help page in a new tab</a>`);
}

export function tabTargetPage(): string {
  return page("Help page", `<p>${NEW_TAB_TEXT}</p>`);
}

export function longPage(): string {
  return page(
    "Long page",
    `<p>Top of the long page</p>
<div style="height: 6000px">Keep scrolling</div>
<p id="bottom">${LONG_PAGE_BOTTOM_TEXT}</p>
<button type="button">Bottom button</button>`,
  );
}

/** Shows whatever is typed, as page text: the agent must mask typed secrets in what it reports. */
export function echoPage(): string {
  return page(
    "Echo",
    `<label>Message <input type="text" name="message" placeholder="Type something"></label>
<p>You typed: <span id="echo"></span></p>
<script>
  const input = document.querySelector('input[name="message"]');
  input.addEventListener("input", () => { document.getElementById("echo").textContent = input.value; });
</script>`,
  );
}

export function slowPage(ms: number): string {
  return page("Slow page", `<p>Slow page loaded after ${ms} ms</p>`);
}

export function statusPage(status: number): string {
  return page(`Status ${status}`, `<p>This page answers with HTTP ${status}</p>`);
}

export function notFoundPage(path: string): string {
  return page("Not found", `<p>No page at ${escapeHtml(path)}</p>`);
}

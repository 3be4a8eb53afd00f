import type { Profile } from "../db/client-types.js";
import { isoTime, isoTimeOrNull } from "../http/format.js";
import type { ProfileView } from "./profile-schemas.js";

export function profileView(profile: Profile): ProfileView {
  return {
    id: profile.id,
    userId: profile.userId,
    name: profile.name,
    lastUsedAt: isoTimeOrNull(profile.lastUsedAt),
    createdAt: isoTime(profile.createdAt),
    updatedAt: isoTime(profile.updatedAt),
    cookieDomains: profile.cookieDomains,
  };
}

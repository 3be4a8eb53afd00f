import { z } from "zod";
import { PathId } from "../http/common-schemas.js";

export const ProfileView = z
  .object({
    id: z.string(),
    userId: z.string().nullable(),
    name: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    cookieDomains: z.array(z.string()).nullable(),
  })
  .meta({ id: "ProfileView" });
export type ProfileView = z.infer<typeof ProfileView>;

const profileFields = {
  name: z.string().max(1000).nullish(),
  userId: z.string().max(1000).nullish(),
};

export const ProfileCreateRequest = z.object(profileFields).prefault({}).meta({ id: "ProfileCreateRequest" });
export const ProfileUpdateRequest = z.object(profileFields).meta({ id: "ProfileUpdateRequest" });

export const ProfileListResponse = z
  .object({
    items: z.array(ProfileView),
    totalItems: z.number().int(),
    pageNumber: z.number().int(),
    pageSize: z.number().int(),
  })
  .meta({ id: "ProfileListResponse" });

export const ProfileIdParams = z.object({ profile_id: PathId });

/** Loose on purpose: the handler validates the storage state itself to answer 400 invalid_storage_state. */
export const StorageStateBody = z
  .object({
    cookies: z.array(z.record(z.string(), z.unknown())).default([]),
    origins: z.array(z.record(z.string(), z.unknown())).default([]),
  })
  .meta({ id: "StorageStateBody" });

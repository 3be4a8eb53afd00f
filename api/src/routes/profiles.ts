import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { Prisma, type PrismaClient } from "../db/client-types.js";
import { errors } from "../errors.js";
import { PageQuery, errorResponses } from "../http/common-schemas.js";
import { newId } from "../ids.js";
import {
  ProfileCreateRequest,
  ProfileIdParams,
  ProfileListResponse,
  ProfileUpdateRequest,
  ProfileView,
  StorageStateBody,
} from "../profiles/profile-schemas.js";
import { profileView } from "../profiles/profile-view.js";
import { cookieDomainsOf, parseStorageState } from "../profiles/storage-state-import.js";

export interface ProfileRoutesOptions {
  db: PrismaClient;
  storageStateBodyLimit: number;
}

const tags = ["Profiles"];

export const profileRoutes: FastifyPluginAsyncZod<ProfileRoutesOptions> = async (app, { db, storageStateBodyLimit }) => {
  app.post(
    "/profiles",
    {
      config: { validationShape: "envelope" },
      schema: { operationId: "createProfile", tags, body: ProfileCreateRequest, response: { 201: ProfileView, ...errorResponses("envelope") } },
    },
    async (request, reply) => {
      const profile = await db.profile.create({
        data: { tenantId: request.tenant.tenantId, id: newId(), name: request.body.name ?? null, userId: request.body.userId ?? null },
      });
      return reply.code(201).send(profileView(profile));
    },
  );

  app.get(
    "/profiles",
    {
      config: { validationShape: "envelope" },
      schema: {
        operationId: "listProfiles",
        tags,
        querystring: PageQuery.extend({ query: z.string().nullish() }),
        response: { 200: ProfileListResponse, ...errorResponses("envelope") },
      },
    },
    async (request) => {
      const { page, page_size: pageSize, query } = request.query;
      const where: Prisma.ProfileWhereInput = { tenantId: request.tenant.tenantId };
      if (query) where.OR = [{ name: { contains: query, mode: "insensitive" } }, { id: query }, { userId: query }];
      const [items, totalItems] = await Promise.all([
        db.profile.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: (page - 1) * pageSize, take: pageSize }),
        db.profile.count({ where }),
      ]);
      return { items: items.map(profileView), totalItems, pageNumber: page, pageSize };
    },
  );

  app.get(
    "/profiles/:profile_id",
    {
      config: { validationShape: "detail" },
      schema: { operationId: "getProfile", tags, params: ProfileIdParams, response: { 200: ProfileView, ...errorResponses("detail", [404]) } },
    },
    async (request) => {
      const profile = await db.profile.findUnique({ where: { tenantId_id: { tenantId: request.tenant.tenantId, id: request.params.profile_id } } });
      if (!profile) throw errors.profileNotFound(request.params.profile_id);
      return profileView(profile);
    },
  );

  for (const [method, operationId] of [
    ["PUT", "updateProfile"],
    ["PATCH", "patchProfile"],
  ] as const) {
    app.route({
      method,
      url: "/profiles/:profile_id",
      config: { validationShape: "envelope" },
      schema: { operationId, tags, params: ProfileIdParams, body: ProfileUpdateRequest, response: { 200: ProfileView, ...errorResponses("envelope", [404]) } },
      handler: async (request) => {
        // Only the fields present in the body are applied (api-v3.md rule 1).
        const changes: Prisma.ProfileUpdateManyMutationInput = { updatedAt: new Date() };
        if (request.body.name !== undefined) changes.name = request.body.name;
        if (request.body.userId !== undefined) changes.userId = request.body.userId;
        const key = { tenantId: request.tenant.tenantId, id: request.params.profile_id };
        const { count } = await db.profile.updateMany({ where: key, data: changes });
        if (count === 0) throw errors.profileNotFound(request.params.profile_id);
        return profileView(await db.profile.findUniqueOrThrow({ where: { tenantId_id: key } }));
      },
    });
  }

  app.delete(
    "/profiles/:profile_id",
    {
      config: { validationShape: "detail" },
      schema: { operationId: "deleteProfile", tags, params: ProfileIdParams, response: { 204: z.null(), ...errorResponses("detail", [404]) } },
    },
    async (request, reply) => {
      const { count } = await db.profile.deleteMany({ where: { tenantId: request.tenant.tenantId, id: request.params.profile_id } });
      if (count === 0) throw errors.profileNotFound(request.params.profile_id);
      return reply.code(204).send(null);
    },
  );

  app.put(
    "/profiles/:profile_id/storage-state",
    {
      bodyLimit: storageStateBodyLimit,
      config: { validationShape: "envelope", bodyErrorsAs: "invalid_storage_state" },
      schema: {
        operationId: "putProfileStorageState",
        tags,
        params: ProfileIdParams,
        body: StorageStateBody,
        response: { 200: ProfileView, ...errorResponses("envelope", [400]) },
      },
    },
    async (request) => {
      const state = parseStorageState(request.body);
      const data = { storageState: state as unknown as Prisma.InputJsonValue, cookieDomains: cookieDomainsOf(state) };
      const profile = await db.profile.upsert({
        where: { tenantId_id: { tenantId: request.tenant.tenantId, id: request.params.profile_id } },
        update: { ...data, updatedAt: new Date() },
        create: { ...data, tenantId: request.tenant.tenantId, id: request.params.profile_id },
      });
      return profileView(profile);
    },
  );
};

export type { PrismaClient, Session, Profile, Message, Tenant, ApiKey } from "../generated/prisma/client.js";
export { Prisma } from "../generated/prisma/client.js";

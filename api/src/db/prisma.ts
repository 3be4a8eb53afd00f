import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client.js";

export type { PrismaClient } from "./client-types.js";

export interface PrismaClientOptions {
  /** Most connections the pool opens (node-postgres's default is 10). */
  poolMax?: number;
}

/** A Prisma client over node-postgres through @prisma/adapter-pg (no query engine binary). */
export function createPrismaClient(connectionString: string, options: PrismaClientOptions = {}): PrismaClient {
  const adapter = new PrismaPg({ connectionString, ...(options.poolMax === undefined ? {} : { max: options.poolMax }) });
  return new PrismaClient({ adapter });
}

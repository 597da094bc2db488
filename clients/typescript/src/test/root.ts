import { fileURLToPath } from "node:url";
import path from "node:path";

/** The package's folder: two folders above the compiled tests (build/test). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The OpenAPI document the types are generated from: FRAGRANCE_OPENAPI_DOC, or the repository's. */
export const documentPath = process.env.FRAGRANCE_OPENAPI_DOC ?? path.join(packageRoot, "..", "..", "internal", "api", "openapi.json");

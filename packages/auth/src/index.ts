export type { HmacAlgorithm, HmacVerifierOptions, HmacVerify } from "./create-hmac-verifier.js";
export { createHmacVerifier } from "./create-hmac-verifier.js";
export type { Hs256JwtVerifierOptions, Hs256JwtVerify, JwtPayload } from "./create-hs256-jwt-verifier.js";
export { createHs256JwtVerifier } from "./create-hs256-jwt-verifier.js";
export { extractBearerToken } from "./extract-bearer-token.js";
export type { SignatureEncoding } from "./signature-encoding.js";

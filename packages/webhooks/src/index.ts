export type { AlphaWebhookVerifierOptions } from "./alpha-webhook-verifier.js";
export {
  alphaWebhookVerifier,
  alphaWebhookVerifier as stripeWebhookVerifier,
} from "./alpha-webhook-verifier.js";
export type { BetaWebhookVerifierOptions } from "./beta-webhook-verifier.js";
export {
  betaWebhookVerifier,
  betaWebhookVerifier as githubWebhookVerifier,
} from "./beta-webhook-verifier.js";
export type {
  AlphaFormatOptions,
  CustomFormatOptions,
  ParsedSignature,
  ParseSignature,
  RawFormatOptions,
  SignatureContext,
  WebhookVerifierOptions,
} from "./create-webhook-verifier.js";
export { createWebhookVerifier, DEFAULT_TOLERANCE_SECONDS } from "./create-webhook-verifier.js";
export type { GammaWebhookVerifierOptions } from "./gamma-webhook-verifier.js";
export {
  gammaWebhookVerifier,
  gammaWebhookVerifier as slackWebhookVerifier,
} from "./gamma-webhook-verifier.js";
export type {
  RawBody,
  VerifyResult,
  WebhookAlgorithm,
  WebhookEncoding,
  WebhookHeaders,
  WebhookSecret,
  WebhookSecretGetter,
  WebhookSecretValue,
  WebhookVerify,
} from "./types.js";

/**
 * Who serves an OpenAI-compatible endpoint, named as OpenTelemetry's
 * `gen_ai.provider.name` names providers, from the endpoint's host.
 *
 * @module
 */

// Hosts of providers that speak the chat-completions protocol, by name suffix.
const HOSTS: [suffix: string, provider: string][] = [
  ["api.openai.com", "openai"],
  [".openai.azure.com", "azure.ai.openai"],
  ["generativelanguage.googleapis.com", "gcp.gemini"],
  ["api.anthropic.com", "anthropic"],
  ["api.deepseek.com", "deepseek"],
  ["api.groq.com", "groq"],
  ["api.mistral.ai", "mistral_ai"],
  ["api.x.ai", "x_ai"],
  ["api.perplexity.ai", "perplexity"],
];

/**
 * The provider serving `baseUrl`: a known provider's name, else `openai`
 * (the protocol spoken, for a self-hosted or unknown endpoint).
 *
 * @example
 * ```ts
 * import { providerName } from "./provider_name.ts";
 * console.log(providerName("https://api.groq.com/openai/v1")); // groq
 * console.log(providerName("http://127.0.0.1:8788/v1")); // openai
 * ```
 */
export function providerName(baseUrl: string): string {
  let host = "";
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    // createOpenAIModel reports a bad URL where it is used
  }
  return HOSTS.find(([suffix]) => host === suffix || host.endsWith(suffix))?.[1] ?? "openai";
}

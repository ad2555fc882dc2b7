// The chaos host's agent folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import llmChatCompletions from './llm-chat-completions.js';
import llmGemini from './llm-gemini.js';
import llmMessages from './llm-messages.js';
import llmResponses from './llm-responses.js';
import mcp from './mcp.js';
import semanticDrift from './semantic-drift.js';

const endpoints: readonly ChaosEndpoint[] = [semanticDrift, llmChatCompletions, llmResponses, llmMessages, llmGemini, mcp];
export default endpoints;

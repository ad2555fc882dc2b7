// The control host's agent folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/agent/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import llmChatCompletions from './llm-chat-completions.js';
import llmGemini from './llm-gemini.js';
import llmMessages from './llm-messages.js';
import llmResponses from './llm-responses.js';
import mcp from './mcp.js';
import semanticDrift from './semantic-drift.js';

const endpoints: readonly HttpEndpoint[] = [semanticDrift, llmChatCompletions, llmResponses, llmMessages, llmGemini, mcp];
export default endpoints;

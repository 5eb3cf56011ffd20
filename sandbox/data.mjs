// Deterministic seed data for the sandbox: the same seed always yields the same records.
// The types of the records live here; random.mjs draws, words.mjs holds the word lists,
// campaignData.mjs builds call records and seed.mjs the state a sandbox starts with.

/**
 * @typedef {{ userId: string, username: string, fullName: string, email: string, at: string }} LastModifiedBy
 * @typedef {{ id: string, name: string, status: 'active' | 'inactive', provider: string, call_type: 'inbound' | 'outbound', createdAt: string, lastModifiedBy?: LastModifiedBy }} Agent
 * @typedef {'pending' | 'in_progress' | 'completed' | 'cancelled' | 'failed'} CampaignStatus
 * @typedef {{ id: string, name: string, status: CampaignStatus, agentName: string, mode: 'immediate' | 'scheduled', numberDid: string, createdAt: string, updatedAt: string, fileName: string, startDate: string }} Campaign
 * @typedef {'pending' | 'calling' | 'answered' | 'no_answer' | 'busy' | 'failed'} CallStatus
 * @typedef {{ phoneNumber: string, status: CallStatus, attempts: number, durationSeconds: number, result: string | null, calledAt: string | null }} CampaignDataRecord
 * @typedef {{ credit: number, currency: string, ratePerMinute: number, readonly minutes: number }} Balance
 * @typedef {{ id: string, name: string, phone: string, email: string | null, attributes: Record<string, unknown>, createdAt: string, updatedAt: string }} Contact
 * @typedef {{ id: string, contactId: string | null, phone: string, status: 'open' | 'closed', important: boolean, updatedAt: string }} Chat
 * @typedef {'text' | 'image' | 'video' | 'audio' | 'document' | 'location'} MessageType
 * @typedef {'queued' | 'sent' | 'delivered' | 'read' | 'failed'} DeliveryStatus
 * @typedef {{ id: string, chatId: string, direction: 'inbound' | 'outbound', type: MessageType, content: string | Record<string, unknown>, status: DeliveryStatus, reaction: string | null, createdAt: string }} Message
 *   `content` is the text for `text` messages, an object for the others (docs/api.md).
 * @typedef {{ id: string, channel: 'whatsapp' | 'sms' | 'email', recipient: string, status: DeliveryStatus, error?: string, createdAt: string, updatedAt: string }} BroadcastMessage
 * @typedef {{ id: string, phone: string, name: string, status: 'connected' | 'disconnected' }} WhatsappNumber
 * @typedef {{ id: string, fileName: string, mimeType: string, size: number, sha256: string, chatId: string, caption: string | null, messageId: string, createdAt: string }} Upload
 * What a broadcast send asked the sandbox to deliver, one entry per recipient (the API's record of
 * a broadcast message has no content; tests and the demo read the text and the links here):
 * @typedef {{ messageId: string, channel: string, recipient: string, text: string | null, templateId: string | null, variables: Record<string, unknown>, whatsappNumberId: string | null, createdAt: string }} SentMessage
 * What a send to a chat or phone asked the sandbox to deliver (given to `onSent`, not kept in
 * `sent`: the Message is in `messages`); `recipient` is the chat's phone:
 * @typedef {{ messageId: string, channel: 'whatsapp', recipient: string, chatId: string, type: MessageType, content: Message['content'], createdAt: string }} SentChatMessage
 *
 * The live data of one sandbox. Arrays keep insertion order; `agents` and `campaigns` must stay
 * in ascending `createdAt` order because list pages are sliced from them without sorting.
 * @typedef {{
 *   agents: Agent[],
 *   campaigns: Campaign[],
 *   campaignData: import('./data/campaignData.mjs').CampaignDataStore,
 *   balance: Balance,
 *   contacts: Contact[],
 *   chats: Chat[],
 *   messages: Message[],
 *   broadcastMessages: BroadcastMessage[],
 *   whatsappNumbers: WhatsappNumber[],
 *   uploads: Upload[],
 *   sent: SentMessage[],
 *   callRuns: Map<string, import('./api/calls.mjs').CallRun>,
 *   campaignDataFailures: Map<string, number>,
 * }} SandboxState
 *
 * @typedef {import('./data/random.mjs').Random} Random
 */

export { createIdFactory, createRandom, hashString, iso, mulberry32 } from './data/random.mjs';
export { INBOUND_TEXTS } from './data/words.mjs';
export {
	CampaignDataStore,
	finishedCall,
	generateCampaignData,
	pendingCall,
} from './data/campaignData.mjs';
export { SEED_EPOCH_MS, createSeedState } from './data/seed.mjs';
export { MAX_ATTEMPTS, callNumbers, callScript } from './data/callScripts.mjs';

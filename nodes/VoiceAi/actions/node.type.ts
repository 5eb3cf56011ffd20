import type { OperationTable } from '../../shared/router';

/** Resource → operations of the Voice AI node. */
export type VoiceAiMap = {
	agent: 'get' | 'getAll';
	campaign: 'get' | 'getAll' | 'cancel' | 'getData';
	billing: 'getBalance';
	report: 'getCallTrends';
};

export type VoiceAiOperations = OperationTable<VoiceAiMap>;

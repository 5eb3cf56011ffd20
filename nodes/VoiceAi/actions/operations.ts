import * as agent from './agent';
import * as billing from './billing';
import * as campaign from './campaign';
import type { VoiceAiOperations } from './node.type';
import * as report from './report';

export const operations: VoiceAiOperations = {
	agent: { get: agent.get, getAll: agent.getAll },
	campaign: {
		get: campaign.get,
		getAll: campaign.getAll,
		cancel: campaign.cancel,
		getData: campaign.getData,
	},
	billing: { getBalance: billing.getBalance },
	report: { getCallTrends: report.getCallTrends },
};

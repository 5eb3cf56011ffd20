// The API's error answers: `{ statusCode, message, error }`.

const STATUS_NAMES = /** @type {Record<number, string>} */ ({
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	409: 'Conflict',
	413: 'Payload Too Large',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
});

/** An error that becomes the response `{ statusCode, message, error }`. */
export class HttpError extends Error {
	/**
	 * @param {number} statusCode
	 * @param {string | string[]} message an array for validation errors
	 * @param {Record<string, string>} [headers]
	 */
	constructor(statusCode, message, headers) {
		super(Array.isArray(message) ? message.join('; ') : message);
		this.statusCode = statusCode;
		this.responseMessage = message;
		this.headers = headers;
	}

	toBody() {
		return {
			statusCode: this.statusCode,
			message: this.responseMessage,
			error: STATUS_NAMES[this.statusCode] ?? 'Error',
		};
	}
}

/** @param {string[]} errors */
export function failIfAny(errors) {
	if (errors.length > 0) throw new HttpError(400, errors);
}

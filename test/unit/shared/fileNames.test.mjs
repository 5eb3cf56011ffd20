// shared/fileNames.ts: what a downloaded file is called and what type it is, from the answer's
// headers first, then from the message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	dispositionFileName,
	fileIdentity,
	safeFileName,
} from '../../../nodes/shared/fileNames.ts';

const message = {
	id: 'msg_1',
	url: 'https://s.example/files/abc',
	fileName: 'invoice.pdf',
	mimeType: 'application/pdf',
};

describe('Content-Disposition', () => {
	it('reads filename* (UTF-8) before filename, quoted or not', () => {
		assert.equal(
			dispositionFileName(
				`attachment; filename="a.pdf"; filename*=UTF-8''se%C3%B1al%20%282%29.pdf`,
			),
			'señal (2).pdf',
		);
		assert.equal(dispositionFileName('attachment; filename="quo\\"ted.jpg"'), 'quo"ted.jpg');
		assert.equal(dispositionFileName('inline; filename=plain.ogg'), 'plain.ogg');
		assert.equal(dispositionFileName('attachment'), undefined);
		assert.equal(dispositionFileName(undefined), undefined);
	});
});

describe('the name and type of a download', () => {
	it('takes both from the answer when it gives them', () => {
		assert.deepEqual(
			fileIdentity(
				{
					'content-type': 'image/png; charset=binary',
					'content-disposition': 'attachment; filename="photo.png"',
				},
				message,
			),
			{ fileName: 'photo.png', mimeType: 'image/png' },
		);
	});

	it("falls back to the message's when the answer has no name and a generic type", () => {
		assert.deepEqual(fileIdentity({ 'content-type': 'application/octet-stream' }, message), {
			fileName: 'invoice.pdf',
			mimeType: 'application/pdf',
		});
		assert.deepEqual(fileIdentity({}, message), {
			fileName: 'invoice.pdf',
			mimeType: 'application/pdf',
		});
	});

	it("then the link's file name, then the message ID with the type's extension", () => {
		const bare = { id: 'msg_9', url: 'https://s.example/media/voice%20note.ogg?sig=1' };
		assert.deepEqual(fileIdentity({ 'content-type': 'audio/ogg' }, bare), {
			fileName: 'voice note.ogg',
			mimeType: 'audio/ogg',
		});
		const none = { id: 'msg_9', url: 'https://s.example/media/abc' };
		assert.deepEqual(fileIdentity({ 'content-type': 'image/jpeg' }, none), {
			fileName: 'msg_9.jpg',
			mimeType: 'image/jpeg',
		});
		assert.deepEqual(fileIdentity({}, none), {
			fileName: 'msg_9',
			mimeType: 'application/octet-stream',
		});
	});

	it('adds the extension to a name without one', () => {
		assert.equal(
			fileIdentity({ 'content-type': 'application/pdf' }, { ...message, fileName: 'contract' })
				.fileName,
			'contract.pdf',
		);
	});

	it('never keeps folders, control characters or dot names', () => {
		assert.equal(safeFileName('../../etc/passwd'), 'passwd');
		assert.equal(safeFileName('C:\\Users\\me\\scan.pdf'), 'scan.pdf');
		assert.equal(safeFileName('bad\u0000na\nme.txt'), 'badname.txt');
		assert.equal(safeFileName('..'), '');
		const long = `${'x'.repeat(300)}.pdf`;
		assert.equal(safeFileName(long).length, 200);
		assert.ok(safeFileName(long).endsWith('.pdf'));
		assert.equal(
			fileIdentity({ 'content-disposition': 'attachment; filename="../x.pdf"' }, message).fileName,
			'x.pdf',
		);
	});
});

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bytes a sealed value has beyond its plaintext (the iv and the tag). */
export const SEALED_OVERHEAD_BYTES = IV_BYTES + TAG_BYTES;
export const AES_KEY_BYTES = 32;

/** AES-256-GCM with a fresh random 96-bit IV; output is `iv | ciphertext | tag`. */
export function sealAesGcm(key: Buffer, plaintext: Buffer, associatedData: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/** Reverses `sealAesGcm`; throws when the bytes or the associated data do not authenticate. */
export function openAesGcm(key: Buffer, sealed: Buffer, associatedData: Buffer): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('sealed data is too short');
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(associatedData);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
}

import { isUtf8 } from 'node:buffer';
import { Transform } from 'node:stream';
import { firstInvalidUtf8Offset, incompleteUtf8Tail } from '@platform/contracts';

/**
 * A pass-through stream that notices bytes which are not UTF-8 (the body is decoded later, by the
 * `openai` client, which would silently turn them into U+FFFD). `onInvalid` is called once, with
 * the offset of the first bad byte in the (decompressed) body. A character split across chunks is
 * not mistaken for a bad one: its first bytes wait for the next chunk.
 */
export function utf8Check(onInvalid: (byteOffset: number) => void): Transform {
  let seen = 0;
  let carry: Buffer = Buffer.alloc(0);
  let reported = false;
  const report = (offset: number): void => {
    reported = true;
    onInvalid(offset);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!reported) {
        const bytes = carry.length ? Buffer.concat([carry, chunk]) : chunk;
        const complete = bytes.length - incompleteUtf8Tail(bytes);
        const head = bytes.subarray(0, complete);
        if (!isUtf8(head)) report(seen + firstInvalidUtf8Offset(head));
        seen += complete;
        carry = Buffer.from(bytes.subarray(complete));
      }
      done(null, chunk);
    },
    flush(done) {
      if (!reported && carry.length) report(seen);
      done();
    },
  });
}

/**
 * NOTE: works around a bug in @foxglove/cdr 3.5 (used by rosmsg2-serialization): `CdrWriter.string`
 * takes the UTF-16 length of the string as its byte length, so any non-ASCII text (an instruction
 * "place the cup on the café table", an event JSON with "é") is written with a wrong length and
 * cut or corrupted. Strings with non-ASCII characters are written here as their UTF-8 bytes
 * through the writer's public API; ASCII strings keep the library's path. Imported for its
 * effect by codec.ts; test/msgs/codec.test.ts round-trips non-ASCII text so a regression fails.
 */
import { CdrWriter } from "@foxglove/cdr";

const utf8 = new TextEncoder();
const NON_ASCII = /[^\x00-\x7f]/;
const original = CdrWriter.prototype.string;

if (!(original as { utf8Fixed?: boolean }).utf8Fixed) {
  const fixed = function (this: CdrWriter, value: string, writeLength = true): CdrWriter {
    if (!NON_ASCII.test(value)) return original.call(this, value, writeLength);
    const bytes = utf8.encode(value);
    if (writeLength) this.uint32(bytes.length + 1);
    this.uint8Array(bytes, false);
    this.uint8(0);
    return this;
  };
  (fixed as { utf8Fixed?: boolean }).utf8Fixed = true;
  CdrWriter.prototype.string = fixed;
}

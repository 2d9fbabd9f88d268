/**
 * Closed-vocabulary instruction tokenizer (pure): each known instruction string maps to a fixed
 * token id sequence, padded with `padId` to `maxLength`. Matching ignores case, repeated
 * whitespace and a trailing period (planner answers end with one).
 */

/** Manifest `tokenizer` block. */
export interface ClosedVocabulary {
  kind: "closed_vocabulary";
  maxLength: number;
  padId: number;
  /** Instruction text → token ids (length <= maxLength). */
  vocabulary: Record<string, number[]>;
}

/** Canonical form used for lookups. */
export function canonicalInstruction(text: string): string {
  return text.trim().replace(/\.+$/, "").trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * Token ids for `text` as int64 [maxLength]. Throws an error listing the vocabulary when `text`
 * is not in it (`where` names the manifest for the message).
 */
export function tokenize(text: string, tok: ClosedVocabulary, where = "tokenizer"): BigInt64Array {
  const key = canonicalInstruction(text);
  const entry = Object.entries(tok.vocabulary).find(([k]) => canonicalInstruction(k) === key);
  if (!entry) {
    const known = Object.keys(tok.vocabulary).map((k) => JSON.stringify(k)).join(", ");
    throw new Error(`${where}: instruction ${JSON.stringify(text)} is not in the closed vocabulary; known: ${known}`);
  }
  const out = new BigInt64Array(tok.maxLength).fill(BigInt(tok.padId));
  entry[1].forEach((id, i) => { out[i] = BigInt(id); });
  return out;
}

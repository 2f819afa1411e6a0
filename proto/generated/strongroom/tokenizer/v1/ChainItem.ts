// Original file: proto/tokenizer.proto

import type { Long } from '@grpc/proto-loader';

export interface ChainItem {
  /**
   * Empty before the first event of a trail.
   */
  'previous'?: (Buffer | Uint8Array | string);
  'first_seq'?: (number | string | Long);
  'canonical'?: (string)[];
  /**
   * The MACs of the first queue_mac.length events (queued ones, read back from the database): each is checked before
   * anything is linked, and an event whose MAC does not hold (forged, edited, or stamped in the future) is refused:
   * left out of the run, named in `refused`, and the rest linked without it.
   */
  'queue_mac'?: (Buffer | Uint8Array | string)[];
  /**
   * The newest head the caller knows committed (0: none said). With `previous` (the head at first_seq - 1), it may
   * not be older than the newest this tokenizer already knows for the tenant: FAILED_PRECONDITION, the trail was cut.
   */
  'committed_seq'?: (number | string | Long);
  'committed_link'?: (Buffer | Uint8Array | string);
  /**
   * The proof of `previous`: the event at first_seq - 1 (its canonical text) and the link before it (empty for the
   * first event). A tokenizer links onto `previous` unproven only when it is the head of a run it linked itself, or
   * the head it knows committed; else it recomputes `previous` from these under the tenant's key first, and one it
   * cannot recompute is refused (FAILED_PRECONDITION: the trail is broken): nothing is linked onto a forged link.
   */
  'proof_canonical'?: (string);
  'proof_previous'?: (Buffer | Uint8Array | string);
  /**
   * The event at first_seq - 1 is a legacy one (stored before keyed links, no digest): its link is the public sha256
   * chain. Accepted only while this tokenizer knows no committed head of the tenant (the first link of an upgrading
   * trail onto its legacy head): the upgrade re-chains the whole trail, and a legacy-form event on a keyed trail has
   * no digest, which AuditVerify and the auditor's command both report as broken.
   */
  'proof_legacy'?: (boolean);
  /**
   * Per canonical text (at most one entry each, in order; empty or absent: none): the row id of this batch's seal
   * item for table audit_events whose output is that event's details. The text is then the event's fields without
   * them (its head) and the tokenizer links the whole text it makes of the two, after sealing: a read's link rides in
   * the message that seals its details and opens its profile. Such items are linked after the batch's seals.
   */
  'details_sealed_as'?: (string)[];
}

export interface ChainItem__Output {
  /**
   * Empty before the first event of a trail.
   */
  'previous': (Buffer);
  'first_seq': (string);
  'canonical': (string)[];
  /**
   * The MACs of the first queue_mac.length events (queued ones, read back from the database): each is checked before
   * anything is linked, and an event whose MAC does not hold (forged, edited, or stamped in the future) is refused:
   * left out of the run, named in `refused`, and the rest linked without it.
   */
  'queue_mac': (Buffer)[];
  /**
   * The newest head the caller knows committed (0: none said). With `previous` (the head at first_seq - 1), it may
   * not be older than the newest this tokenizer already knows for the tenant: FAILED_PRECONDITION, the trail was cut.
   */
  'committed_seq': (string);
  'committed_link': (Buffer);
  /**
   * The proof of `previous`: the event at first_seq - 1 (its canonical text) and the link before it (empty for the
   * first event). A tokenizer links onto `previous` unproven only when it is the head of a run it linked itself, or
   * the head it knows committed; else it recomputes `previous` from these under the tenant's key first, and one it
   * cannot recompute is refused (FAILED_PRECONDITION: the trail is broken): nothing is linked onto a forged link.
   */
  'proof_canonical': (string);
  'proof_previous': (Buffer);
  /**
   * The event at first_seq - 1 is a legacy one (stored before keyed links, no digest): its link is the public sha256
   * chain. Accepted only while this tokenizer knows no committed head of the tenant (the first link of an upgrading
   * trail onto its legacy head): the upgrade re-chains the whole trail, and a legacy-form event on a keyed trail has
   * no digest, which AuditVerify and the auditor's command both report as broken.
   */
  'proof_legacy': (boolean);
  /**
   * Per canonical text (at most one entry each, in order; empty or absent: none): the row id of this batch's seal
   * item for table audit_events whose output is that event's details. The text is then the event's fields without
   * them (its head) and the tokenizer links the whole text it makes of the two, after sealing: a read's link rides in
   * the message that seals its details and opens its profile. Such items are linked after the batch's seals.
   */
  'details_sealed_as': (string)[];
}

// What the page drew of a draft, sent with every Apply, Approve and Deny as
// `expect`: the server refuses with STALE_REVIEW, writing nothing, when the
// draft is no longer in that state. The diff is read beside the draft's
// state, not with it: when the two were drawn from different states (a
// batch landed between the reads), the page sends nothing and draws again.
import { drawnFingerprint } from './diff-view.js';

export function expectOf(draft, review) {
  const drawn = drawnFingerprint(draft);
  if (drawn !== undefined && drawn !== review.review_fingerprint) {
    throw Object.assign(new Error('the draft changed while the page was drawing it: nothing was sent'), { code: 'STALE_REVIEW', hint: 'it is drawn again: look at it, then decide' });
  }
  return review.review_fingerprint;
}

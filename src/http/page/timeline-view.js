// A draft's timeline: its ledger, newest first (batches, captures,
// checkpoints, rollbacks, applies, decisions), who and when.
import { el, when } from './dom.js';

export function timelineSection(events) {
  const items = [...events].reverse().map((e) =>
    el(
      'li',
      { dataset: { seq: e.seq, type: e.type } },
      el('time', { dateTime: e.ts }, when(e.ts)),
      el('span', { className: 'actor' }, e.actor),
      el('span', { className: 'what' }, e.what),
      e.via ? el('span', { className: 'via' }, `from ${e.via}`) : null,
    ),
  );
  return el('section', { id: 'timeline' }, el('h3', {}, 'Timeline'), el('ol', { className: 'timeline' }, items));
}

import { ShadowError } from '../../errors.js';

/**
 * Who wrote a batch, beyond its actor's name: a person or an AI, and which
 * model. Recorded on every batch commit (`Shadow-Actor-Type`,
 * `Shadow-Model`) and, for an AI, as the `Assisted-by: AGENT:MODEL` trailer
 * the Linux kernel set for coding assistants, so that the commits `apply
 * --commit` puts on a branch say it in a form other tools read
 * (`shadow.trailer none` leaves it out). What a capture commit records was
 * the person's: `human`.
 */

export type ActorType = 'ai' | 'human';

export interface Identity {
  type: ActorType;
  model?: string;
}

/** The longest model id taken (an id is a name, never a document). */
export const MAX_MODEL_LENGTH = 200;

/** An identity from its parts as given (options, environment), checked; `type` defaults to `ai` when a model is named, else `human`. */
export function identityOf(type: string | undefined, model: string | undefined): Identity {
  if (type !== undefined && type !== 'ai' && type !== 'human') {
    throw new ShadowError('INVALID_ARGUMENT', `actor type "${type}" is neither ai nor human`, {
      hint: '--actor-type ai|human (or SHADOW_ACTOR_TYPE)',
      data: { type },
    });
  }
  if (model !== undefined) {
    if (model.length === 0 || model.length > MAX_MODEL_LENGTH || /[\u0000-\u001f\u007f]/.test(model)) {
      throw new ShadowError(
        'INVALID_ARGUMENT',
        `model id ${JSON.stringify(model.slice(0, 40))}${model.length > 40 ? '…' : ''} is not 1 to ${MAX_MODEL_LENGTH} printable characters`,
        {
          hint: 'name the model as its provider does, e.g. anthropic/claude-sonnet-4-5 (--model or SHADOW_MODEL)',
          data: { length: model.length },
        },
      );
    }
  }
  return {
    type: (type as ActorType | undefined) ?? (model !== undefined ? 'ai' : 'human'),
    ...(model !== undefined ? { model } : {}),
  };
}

/** The trailer lines a batch by `actor` carries beside shadow's own, per `shadow.trailer` (`assisted-by`, the default, or `none`). */
export function attributionLines(actor: string, identity: Identity, style: string | undefined): string[] {
  if (identity.type !== 'ai' || style === 'none') return [];
  const agent = actor.replace(/[\s:]+/g, '-');
  return [`Assisted-by: ${agent}:${identity.model ?? 'unknown'}`];
}

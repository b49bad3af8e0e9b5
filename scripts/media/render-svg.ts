/**
 * An asciinema recording as an animated SVG, which GitHub shows inline in a
 * README: svg-term (a devDependency) lays out every frame once and animates
 * them with CSS. It is loaded here only, by require: a CommonJS package,
 * and the rest of the project never needs it.
 */
import { createRequire } from 'node:module';

interface SvgTermOptions {
  window?: boolean;
  paddingX?: number;
  paddingY?: number;
  /** Milliseconds at most between two frames: a longer wait is cut to this. */
  idle?: number;
  /** Frames a second at most: typing faster than this is drawn in fewer frames. */
  fps?: number;
}

interface SvgTerm {
  render(cast: string, options?: SvgTermOptions): string;
}

/**
 * The renderer: a function from a recording (asciinema v2 text) to an
 * animated SVG. Loaded before anything is recorded, so that a missing
 * svg-term stops the run before it has spent its time.
 */
export function svgRenderer(): (cast: string) => string {
  let svgTerm: SvgTerm;
  try {
    svgTerm = createRequire(import.meta.url)('svg-term') as SvgTerm;
  } catch (e) {
    throw new Error(
      `rendering the recording needs svg-term (a devDependency: npm ci): ${(e as Error).message.split('\n')[0]}`,
    );
  }
  return (cast) => svgTerm.render(cast, { window: true, paddingX: 12, paddingY: 8, idle: 3000, fps: 10 });
}

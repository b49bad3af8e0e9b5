/**
 * The build of the running executable: cli/bundle.mjs gives every build its
 * own id, in the executable and the CLI bundle alike, so a caller hands a
 * command only to a server of the same build (a server left running across
 * an upgrade is not used). Compiled without the bundler (the tests' tsc
 * output), it is `unbundled`.
 */
declare const __SHADOW_BUILD__: string | undefined;

export const BUILD_ID: string = typeof __SHADOW_BUILD__ === 'string' ? __SHADOW_BUILD__ : 'unbundled';

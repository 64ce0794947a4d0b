/**
 * The generator behind the hostile-input suite, so the suite itself reads as
 * its scenarios: the bundles it aims at, a seeded generator, body and
 * pending-ID categories, the model that says what each case must get back,
 * and wire helpers.
 */
export * from './hostile/world.js';
export * from './hostile/gen.js';
export * from './hostile/bodies.js';
export * from './hostile/targets.js';
export * from './hostile/model.js';
export * from './hostile/wire.js';
export * from './hostile/fingerprint.js';
export * from './hostile/text-fields.js';

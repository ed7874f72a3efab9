/** Fault injection and the request journal (see rules.ts for the rule model). */
export * from './rules';
export * from './journal';
export * from './controller';
export * from './responses';
export * from './load';

/**
 * HarvesterKeyPair: a Harvester SSH key pair. Model (model.ts) → rules and plan (validate.ts, public-key.ts,
 * plan.ts; pure) → handlers.ts (the API).
 */
export { createKeyPairProvider, keyPairResource, type KeyPairProvider, type KeyPairProviderOptions } from './handlers';
export { keyPairSchema, keyPairOutputsSchema, SECRET_INPUTS, type KeyPairInputs, type KeyPairArgs, type KeyPairOutputs } from './model';
export { desiredKeyPair, liveInputs, keyPairId } from './plan';
export { judgePublicKey, md5FingerprintOf } from './public-key';
export { validateInputs } from './validate';

/**
 * HarvesterImage: a Harvester VM image downloaded from a URL. Model (model.ts) → rules and plan (validate.ts,
 * plan.ts; pure) → cluster reads (cluster.ts) → handlers.ts (the API).
 */
export { createImageProvider, type ImageProvider, type ImageProviderOptions } from './handlers';
export { imageSchema, imageOutputsSchema, SECRET_INPUTS, IMAGE_TYPES, type ImageInputs, type ImageArgs, type ImageOutputs } from './model';
export { desiredImage, liveInputs, driftOf, diffInputs, importVerdict } from './plan';
export { validateInputs, urlProblem } from './validate';

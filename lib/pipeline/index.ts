export * from './types.js';
export { parsePipeline, checkPipeline, pipelineError, type PipelineProblem, type PipelineCheck } from './parse.js';
export { loadPipelineFile } from './load-file.js';
export { checkImageReference, parseImageReference, imageProblemMessage, type ImageReference, type ImageCheck } from './image-reference.js';
export { parseDuration, formatDuration, MAX_DURATION_SECONDS, type DurationResult } from './duration.js';
export { validatePipelineData, pipelineSchema, MAX_STEPS, ProblemKinds, type ProblemKind, type SchemaProblem, type PipelineData } from './schema.js';
export { MAX_PIPELINE_BYTES } from './yaml-document.js';
export { InvalidPipeline, InvalidImage, type PipelineLocation } from './errors.js';
export { quantityProblem } from './quantity.js';

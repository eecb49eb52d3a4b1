/**
 * Public API of the simulated inference engine.
 * - startSimServer / serveSim: the OpenAI-compatible HTTP server (real time)
 * - runVirtual: the same engine in virtual time, producing RequestRecords
 * - profiles and the clock-free Engine, for "what if" tools
 */
export { startSimServer } from './server.js';
export type { FaultOptions, GroundTruthEntry, LatenessSummary, SimServer, SimServerOptions, TimingOptions } from './server.js';
export { serveSim } from './serve-cli.js';
export type { ServeOptions, ServingSim } from './serve-cli.js';
export { runVirtual } from './virtual.js';
export type { VirtualOptions, VirtualRequest, VirtualStats } from './virtual.js';
export { DEFAULT_ENGINE_CONFIG, engineConfig, numGpuBlocks, v1BatchDefaults } from './engine/config.js';
export type { EngineConfig } from './engine/config.js';
export { ENGINE_PRESETS, V0_STEP_OVERHEAD_MS, presetEngine } from './engine/presets.js';
export type { EnginePreset } from './engine/presets.js';
export { Engine } from './engine/engine.js';
export type { EngineRequest, StepResult } from './engine/engine.js';
export { HARDWARE } from './engine/hardware.js';
export type { HardwareProfile } from './engine/hardware.js';
export { MODELS, kvBytesPerToken, weightBytes } from './engine/models.js';
export type { ModelProfile } from './engine/models.js';
export { hardwareProfile, modelProfile } from './engine/profiles.js';
export { Roofline } from './engine/roofline.js';
export type { EngineTiming } from './engine-backend.js';
export type { ReasoningOptions } from './reasoning.js';
export { DEFAULT_ANSWER_RATES, SIM_REFUSAL, answerTokens, chooseAnswer } from './answer-mode.js';
export type { AnswerKey, AnswerModeOptions, AnswerRates, KnownAnswer } from './answer-mode.js';
export { calibrate, FIT_PARAMS, replay, fitError } from './calibrate/fit.js';
export { compareRun, validateTwin, VALIDATE_FIGURES } from './calibrate/validate.js';
export type { FigureComparison, LoadLevelValidation, ValidateFigure, ValidationSummary } from './calibrate/validate.js';
export type { CalibrationResult, CalibrationRun, FitParam, MeasuredRequest } from './calibrate/fit.js';
export { SIM_ENGINE, identityExposition, simIdentity } from './identity.js';
export type { SimIdentity } from './identity.js';
export { modelsBody } from './http/router.js';

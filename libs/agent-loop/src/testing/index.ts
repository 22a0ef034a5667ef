// Test doubles for the engine's ports: a scripted model, in-process tools, a manual clock.
export { ScriptedModel, reply, type ScriptStep } from './scripted-model.js';
export { FakeTools, type FakeTool } from './fake-tools.js';
export { FakeClock } from './fake-clock.js';

// Programmatic entry, for generators that compose this one. `nx g` loads the generator through
// generators.json instead.
export { default as runnerGenerator } from './runner/generator.js';

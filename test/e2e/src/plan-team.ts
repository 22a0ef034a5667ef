// The plan-and-execute team of the plans and steer-plan suites (an operator profiles file): a
// planner whose executor is `worker`, with `worker` (research and writing) and `booker` (held to
// the slow `book_slot` test tool) as the roles its subtasks run under.
export const PLAN_TEAM_PROFILES = {
  defaultProfile: 'planner',
  profiles: [
    {
      name: 'planner',
      systemPrompt: 'You plan work for a small team.',
      tools: [],
      strategy: 'plan-and-execute',
      planning: { executor: 'worker' },
      delegates: [
        { role: 'worker', description: 'does research and writing.' },
        { role: 'booker', description: 'books meeting slots.' },
      ],
    },
    { name: 'worker', systemPrompt: 'You do one subtask well.', tools: ['current_time'] },
    { name: 'booker', systemPrompt: 'You book meeting slots.', tools: ['book_slot'] },
  ],
};

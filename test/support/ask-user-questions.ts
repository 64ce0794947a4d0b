/**
 * Claude Code's \`AskUserQuestion\` input the elicitation tests ask with: three
 * questions, one multi-select, with headers and option descriptions, as the
 * adapter's own functions, a fixture agent and the model stand-in send it.
 */
import type { AskUserQuestion } from '@agentclientprotocol/claude-agent-acp/dist/elicitation.js';

export const THREE_QUESTIONS: AskUserQuestion[] = [
  {
    question: 'Which database should the service use?',
    header: 'Database',
    multiSelect: false,
    options: [
      { label: 'PostgreSQL', description: 'One server, strong SQL' },
      { label: 'SQLite', description: 'Embedded, no server' },
    ],
  },
  {
    question: 'Which checks run on every push?',
    header: 'Checks',
    multiSelect: true,
    options: [
      { label: 'Lint', description: 'eslint and prettier' },
      { label: 'Tests', description: 'the unit suite' },
      { label: 'Bench', description: 'the ratios' },
    ],
  },
  {
    question: 'How many replicas?',
    header: 'Replicas',
    multiSelect: false,
    options: [
      { label: 'One', description: 'cheapest' },
      { label: 'Three', description: 'survives one loss' },
    ],
  },
];

/** An agent's generic form with every field kind the form card renders (text, choice, number, yes/no, multi-choice). */
import { formSchema } from '../../../src/wire/index.js';

export const DEPLOY_FORM = formSchema.parse({
  title: 'Deploy settings',
  properties: {
    service: {
      type: 'string',
      title: 'Service name',
      minLength: 3,
      description: 'As in the registry',
    },
    env: {
      type: 'string',
      title: 'Environment',
      oneOf: [
        { const: 'dev', title: 'Development' },
        { const: 'prod', title: 'Production' },
      ],
    },
    replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5 },
    notify: { type: 'boolean', title: 'Notify the team' },
    regions: {
      type: 'array',
      title: 'Regions',
      items: {
        anyOf: [
          { const: 'eu', title: 'Europe' },
          { const: 'us', title: 'Americas' },
        ],
      },
    },
  },
  required: ['service', 'env', 'replicas'],
});

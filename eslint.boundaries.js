/**
 * DESIGN §3's "never" column as lint rules: which owner may not import which,
 * and that an import leaving an owner's folder goes through that folder's
 * `index.ts`. Tests may reach into internals; the product may not.
 */

/** Owners by folder under `src/`, and the owners each may never import. */
const NEVER = {
  wire: ['*'],
  store: [
    'http',
    'clarification',
    'turns',
    'user-input',
    'agents',
    'events',
    'observability',
    'notify',
    'cluster',
  ],
  'user-input': ['store', 'http', 'clarification', 'turns', 'agents', 'events'],
  events: ['http', 'clarification', 'turns', 'agents'],
  clarification: ['http', 'turns'],
  agents: ['http'],
  notify: ['http'],
  cluster: ['http', 'clarification', 'turns', 'user-input', 'agents'],
  observability: ['http', 'clarification', 'turns', 'user-input', 'agents', 'events'],
  support: ['*'],
};

/** `http` may name the store's types (a `Store` to hand a service) but never call it. */
const HTTP_NO_SQL = {
  regex: '(^|/)store/',
  allowTypeImports: true,
  message: 'http never runs SQL: call a service that owns the read or write (DESIGN §3).',
};

const ESCAPE = (depth) => `^(\\.\\./){${depth}}`;

function ownerRules(owner, never, depth) {
  if (never.includes('*')) {
    return [
      {
        regex: `${ESCAPE(depth)}(?!${owner}/)[a-z-]+`,
        message: `${owner}/ imports nothing of Clarion's outside its folder (DESIGN §3).`,
      },
    ];
  }
  return never.map((other) => ({
    regex: `${ESCAPE(depth)}${other}/`,
    message: `${owner}/ never imports ${other}/ (DESIGN §3).`,
  }));
}

/** A path that leaves the owner's folder must end at a folder's `index.js`. */
function barrelRule(depth) {
  return {
    regex: `${ESCAPE(depth)}[a-z-]+/.*(?<!/index\\.js)$`,
    message:
      'import another folder through its index.ts, not its internals (STYLE: one public surface).',
  };
}

const PRODUCT = { ignores: ['**/*.test.ts'] };

/**
 * `no-restricted-imports` sees static imports only, so a dynamic import
 * could carry anything past the rules above: one that leaves its folder, or
 * whose target is computed, is refused.
 */
const STATIC_ACROSS_FOLDERS = [
  {
    selector: 'ImportExpression[source.type="Literal"][source.value=/^\\.\\.\\//]',
    message: 'import another folder statically, so the boundary rules can check it (DESIGN §3).',
  },
  {
    selector: 'ImportExpression:not([source.type="Literal"])',
    message: 'a computed import hides what it loads from the boundary rules (DESIGN §3).',
  },
];

/** Only zod: the wire module is imported by the browser and the server alike. */
const WIRE_PACKAGES = {
  regex: '^(?!zod$)[^.]',
  message: 'wire/ imports nothing but zod (DESIGN §3).',
};

function folderConfigs() {
  const configs = [];
  const owners = [
    'wire',
    'store',
    'user-input',
    'events',
    'clarification',
    'agents',
    'observability',
    'support',
    'http',
    'turns',
    'auth',
    'notify',
    'cluster',
  ];
  for (const owner of owners) {
    for (const depth of [1, 2]) {
      const files = [depth === 1 ? `src/${owner}/*.ts` : `src/${owner}/*/*.ts`];
      const patterns = [
        ...(NEVER[owner] ? ownerRules(owner, NEVER[owner], depth) : []),
        ...(owner === 'http' ? [HTTP_NO_SQL] : []),
        ...(owner === 'wire' ? [WIRE_PACKAGES] : []),
        barrelRule(depth),
      ];
      configs.push({
        files,
        ...PRODUCT,
        rules: { 'no-restricted-imports': ['error', { patterns }] },
      });
    }
  }
  return configs;
}

export const boundaries = [
  ...folderConfigs(),
  {
    files: ['src/**/*.ts', 'web/src/**/*.ts', 'web/src/**/*.tsx'],
    ...PRODUCT,
    rules: { 'no-restricted-syntax': ['error', ...STATIC_ACROSS_FOLDERS] },
  },
  {
    files: ['web/src/**/*.ts', 'web/src/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)src/(?!wire/)',
              message: 'the web app imports nothing from src/ but src/wire (DESIGN §3).',
            },
            {
              regex: '^qrcode$',
              message:
                'qrcode is fetched once a QR code is drawn (web/src/model/qr-image.ts): a static import puts it in every first load.',
            },
          ],
        },
      ],
    },
  },
];

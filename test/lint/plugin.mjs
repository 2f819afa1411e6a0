// Project lint rules that no stock rule covers, loaded by oxlint (.oxlintrc.json, jsPlugins; ESLint's plugin API).

const COMBINATORS = new Set(['all', 'allSettled', 'race', 'any']);
const FUNCTIONS = new Set(['FunctionExpression', 'ArrowFunctionExpression', 'FunctionDeclaration']);

/** `Promise.all([a(), await b()])`: b is awaited before Promise.all exists, so a rejection of a() meanwhile is unhandled. */
const noAwaitInPromiseCombinator = {
  meta: {
    type: 'problem',
    docs: { description: 'Disallow await inside the arguments of Promise.all, allSettled, race or any' },
    messages: {
      awaitInside:
        'await inside the arguments of Promise.{{name}}: the promises before it are not yet observed, and a rejection meanwhile crashes the process. Start the promise without await and let Promise.{{name}} wait.',
    },
    schema: [],
  },
  create(context) {
    return {
      AwaitExpression(node) {
        let child = node;
        for (let parent = node.parent; parent; child = parent, parent = parent.parent) {
          if (FUNCTIONS.has(parent.type)) return;
          if (
            parent.type === 'CallExpression' &&
            parent.arguments.includes(child) &&
            parent.callee.type === 'MemberExpression' &&
            parent.callee.object.type === 'Identifier' &&
            parent.callee.object.name === 'Promise' &&
            parent.callee.property.type === 'Identifier' &&
            COMBINATORS.has(parent.callee.property.name)
          ) {
            context.report({ node, messageId: 'awaitInside', data: { name: parent.callee.property.name } });
            return;
          }
        }
      },
    };
  },
};

export default {
  meta: { name: 'strongroom' },
  rules: { 'no-await-in-promise-combinator': noAwaitInPromiseCombinator },
};

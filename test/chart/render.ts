// A small renderer of the chart's templates, for tests that need the manifests Helm would produce without Helm:
// the subset of Go templates and Sprig functions the chart uses (if/else if/else, with, define/include, variables,
// pipelines, printf, default, quote, toYaml, toJson, nindent, …). An unknown function or construct throws: a template
// that outgrows it fails the test loudly instead of rendering something else.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

type Value = any;
type Node =
  | { kind: 'text'; text: string }
  | { kind: 'action'; pipe: string }
  | { kind: 'if'; branches: { cond: string; body: Node[] }[]; otherwise: Node[] }
  | { kind: 'with'; pipe: string; body: Node[]; otherwise: Node[] }
  | { kind: 'range'; pipe: string; body: Node[]; otherwise: Node[] };

/** Thrown by `fail` in a template: what `helm template` would print and refuse. */
export class TemplateFailure extends Error {}

interface Token {
  text?: string;
  action?: string;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    if (open < 0) {
      out.push({ text: src.slice(i) });
      break;
    }
    let text = src.slice(i, open);
    let start = open + 2;
    if (src[start] === '-' && /\s/.test(src[start + 1] ?? '')) {
      text = text.replace(/\s+$/, '');
      start++;
    }
    out.push({ text });
    let close = src.indexOf('}}', start);
    if (src.slice(start).trimStart().startsWith('/*')) close = src.indexOf('*/', start) + 2 + src.slice(src.indexOf('*/', start) + 2).indexOf('}}');
    if (close < 0) throw new Error('unclosed action');
    let body = src.slice(start, close);
    i = close + 2;
    if (/\s-$/.test(body)) {
      body = body.slice(0, -1);
      const m = /^\s*/.exec(src.slice(i))!;
      i += m[0].length;
    }
    body = body.trim();
    if (!body.startsWith('/*')) out.push({ action: body });
  }
  return out;
}

function parse(tokens: Token[], defines: Map<string, Node[]>): Node[] {
  let pos = 0;
  const block = (stops: RegExp): { nodes: Node[]; stop: string } => {
    const nodes: Node[] = [];
    while (pos < tokens.length) {
      const t = tokens[pos++]!;
      if (t.text !== undefined) {
        if (t.text) nodes.push({ kind: 'text', text: t.text });
        continue;
      }
      const a = t.action!;
      if (stops.test(a)) return { nodes, stop: a };
      let m: RegExpExecArray | null;
      if ((m = /^if\s+([\s\S]+)$/.exec(a))) {
        const branches = [{ cond: m[1]!, body: [] as Node[] }];
        let otherwise: Node[] = [];
        for (;;) {
          const inner = block(/^(else|end)\b/);
          branches[branches.length - 1]!.body = inner.nodes;
          const elif = /^else\s+if\s+([\s\S]+)$/.exec(inner.stop);
          if (elif) {
            branches.push({ cond: elif[1]!, body: [] });
            continue;
          }
          if (inner.stop === 'else') otherwise = block(/^end$/).nodes;
          break;
        }
        nodes.push({ kind: 'if', branches, otherwise });
      } else if ((m = /^(with|range)\s+([\s\S]+)$/.exec(a))) {
        if (m[1] === 'range' && /:=/.test(m[2]!)) throw new Error(`the test renderer does not know {{ ${a} }}`);
        const inner = block(/^(else|end)$/);
        const otherwise = inner.stop === 'else' ? block(/^end$/).nodes : [];
        nodes.push({ kind: m[1] as 'with' | 'range', pipe: m[2]!, body: inner.nodes, otherwise });
      } else if ((m = /^define\s+"([^"]+)"$/.exec(a))) {
        defines.set(m[1]!, block(/^end$/).nodes);
      } else if (/^(template|block)\b/.test(a)) {
        throw new Error(`the test renderer does not know {{ ${a} }}`);
      } else {
        nodes.push({ kind: 'action', pipe: a });
      }
    }
    return { nodes, stop: '' };
  };
  return block(/^$^/).nodes;
}

const empty = (v: Value) =>
  v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

const str = (v: Value): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

function lex(pipe: string): string[] {
  const re = /\s*("(?:[^"\\]|\\.)*"|\(|\)|\||:=|=|[^\s()|]+)/y;
  const out: string[] = [];
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  while (re.lastIndex < pipe.length && (m = re.exec(pipe))) out.push(m[1]!);
  if (pipe.slice(re.lastIndex).trim()) throw new Error(`cannot read {{ ${pipe} }}`);
  return out;
}

export class ChartRenderer {
  private readonly defines = new Map<string, Node[]>();
  private readonly files = new Map<string, Node[]>();

  constructor(
    private readonly chartDir: string,
    private readonly release = { Name: 'sr', Namespace: 'vault', Service: 'Helm' },
  ) {
    for (const f of readdirSync(join(chartDir, 'templates'))) {
      if (!/\.(yaml|tpl|txt)$/.test(f)) continue;
      this.files.set(f, parse(tokenize(readFileSync(join(chartDir, 'templates', f), 'utf8')), this.defines));
    }
  }

  /** One template rendered with these values (already merged over values.yaml); '' when it renders nothing. */
  render(file: string, values: Value): string {
    const chart = YAML.parse(readFileSync(join(this.chartDir, 'Chart.yaml'), 'utf8'));
    const top = {
      Values: values,
      Release: this.release,
      Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
      Template: { BasePath: 'strongroom/templates' },
    };
    const nodes = this.files.get(file);
    if (!nodes) throw new Error(`no template ${file}`);
    return this.exec(nodes, top, top, new Map()).trim();
  }

  /** The rendered template as a parsed manifest, or undefined when it renders nothing. */
  manifest(file: string, values: Value): Value {
    const text = this.render(file, values);
    return text ? YAML.parse(text) : undefined;
  }

  private exec(nodes: Node[], dot: Value, root: Value, vars: Map<string, Value>): string {
    let out = '';
    for (const n of nodes) {
      if (n.kind === 'text') out += n.text;
      else if (n.kind === 'action') {
        const assign = /^(\$\w+)\s*:?=\s*([\s\S]+)$/.exec(n.pipe);
        if (assign) vars.set(assign[1]!, this.pipeline(assign[2]!, dot, root, vars));
        else out += str(this.pipeline(n.pipe, dot, root, vars));
      } else if (n.kind === 'if') {
        const hit = n.branches.find((b) => !empty(this.pipeline(b.cond, dot, root, vars)));
        out += this.exec(hit ? hit.body : n.otherwise, dot, root, vars);
      } else if (n.kind === 'with') {
        const v = this.pipeline(n.pipe, dot, root, vars);
        out += empty(v) ? this.exec(n.otherwise, dot, root, vars) : this.exec(n.body, v, root, vars);
      } else {
        const v = this.pipeline(n.pipe, dot, root, vars);
        const items: Value[] = empty(v) ? [] : Array.isArray(v) ? v : Object.keys(v).sort().map((k) => v[k]);
        out += items.length ? items.map((item) => this.exec(n.body, item, root, vars)).join('') : this.exec(n.otherwise, dot, root, vars);
      }
    }
    return out;
  }

  private pipeline(pipe: string, dot: Value, root: Value, vars: Map<string, Value>): Value {
    const tokens = lex(pipe);
    let pos = 0;
    const operand = (): Value => {
      const t = tokens[pos++]!;
      if (t === '(') {
        const v = commands();
        if (tokens[pos++] !== ')') throw new Error(`unbalanced ( in {{ ${pipe} }}`);
        return v;
      }
      if (t.startsWith('"')) return JSON.parse(t);
      if (/^-?\d+$/.test(t)) return Number(t);
      if (t === 'true' || t === 'false') return t === 'true';
      if (t === '.') return dot;
      if (t.startsWith('.')) return walk(dot, t.slice(1));
      if (t.startsWith('$')) {
        const [name, ...rest] = t.split('.');
        const base = name === '$' ? root : vars.get(name!);
        if (name !== '$' && !vars.has(name!)) throw new Error(`undefined variable ${name}`);
        return rest.length ? walk(base, rest.join('.')) : base;
      }
      return { fn: t };
    };
    const command = (piped?: { v: Value }): Value => {
      const parts: Value[] = [];
      while (pos < tokens.length && tokens[pos] !== '|' && tokens[pos] !== ')') parts.push(operand());
      if (piped) parts.push(piped.v);
      const [head, ...rest] = parts;
      // A function named as an argument is called with none (`default uuidv4 $token`).
      const args = rest.map((p) => (p && typeof p === 'object' && 'fn' in p ? this.call(p.fn as string, [], root) : p));
      if (head && typeof head === 'object' && 'fn' in head) return this.call(head.fn as string, args, root);
      if (args.length) throw new Error(`{{ ${pipe} }}: arguments to a value`);
      return head;
    };
    const commands = (): Value => {
      let v = command();
      while (tokens[pos] === '|') {
        pos++;
        v = command({ v });
      }
      return v;
    };
    const v = commands();
    if (pos !== tokens.length) throw new Error(`cannot read {{ ${pipe} }}`);
    return v;
  }

  private call(fn: string, a: Value[], root: Value): Value {
    switch (fn) {
      case 'include': {
        // A whole template by path ($.Template.BasePath/…), as the checksum annotations include the Secrets.
        const file = /^strongroom\/templates\/(.+)$/.exec(a[0])?.[1];
        const body = file ? this.files.get(file) : this.defines.get(a[0]);
        if (!body) throw new Error(`no define ${a[0]}`);
        return this.exec(body, a[1], file ? root : a[1], new Map());
      }
      case 'printf': {
        let i = 1;
        return String(a[0]).replace(/%[sdv]/g, () => str(a[i++]));
      }
      case 'print':
        return a.map(str).join('');
      case 'default':
        return empty(a[1]) ? a[0] : a[1];
      case 'quote':
        return JSON.stringify(str(a[0]));
      case 'toYaml':
        return YAML.stringify(a[0]).trimEnd();
      case 'toJson':
        // As Go's json.Marshal: compact, object keys sorted.
        return JSON.stringify(a[0], (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1))) : v));
      case 'nindent':
        return '\n' + str(a[1]).split('\n').map((l) => ' '.repeat(a[0]) + l).join('\n');
      case 'indent':
        return str(a[1]).split('\n').map((l) => ' '.repeat(a[0]) + l).join('\n');
      case 'trunc':
        return str(a[1]).slice(0, a[0]);
      case 'trimSuffix':
        return str(a[1]).endsWith(a[0]) ? str(a[1]).slice(0, -str(a[0]).length) : str(a[1]);
      case 'replace':
        return str(a[2]).split(a[0]).join(a[1]);
      case 'contains':
        return str(a[1]).includes(a[0]);
      case 'has':
        return Array.isArray(a[1]) && a[1].includes(a[0]);
      case 'int':
        return Number.parseInt(str(a[0]), 10) || 0;
      case 'gt':
        return a[0] > a[1];
      case 'lt':
        return a[0] < a[1];
      case 'sub':
        return a[0] - a[1];
      case 'add':
        return a[0] + a[1];
      case 'eq':
        return a[0] === a[1];
      case 'ne':
        return a[0] !== a[1];
      case 'not':
        return empty(a[0]);
      case 'and':
        return a.find((v) => empty(v)) ?? a[a.length - 1];
      case 'or':
        return a.find((v) => !empty(v)) ?? a[a.length - 1];
      case 'b64enc':
        return Buffer.from(str(a[0])).toString('base64');
      case 'sha256sum':
        return createHash('sha256').update(str(a[0])).digest('hex');
      case 'lookup':
        // As `helm template`: no cluster to ask, so nothing exists yet.
        return {};
      case 'randAlphaNum':
        return randomBytes(a[0]).toString('hex').slice(0, a[0]);
      case 'uuidv4':
        return randomUUID();
      case 'fail':
        throw new TemplateFailure(str(a[0]));
      default:
        void root;
        throw new Error(`the test renderer does not know the function ${fn}`);
    }
  }
}

/** Helm's merge of a values file over the defaults: maps merge, everything else replaces, null removes. */
export function helmMerge(base: Value, over: Value): Value {
  if (over === null) return undefined;
  if (typeof base !== 'object' || base === null || Array.isArray(base) || typeof over !== 'object' || Array.isArray(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const merged = helmMerge(base[k], v);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  return out;
}

function walk(v: Value, path: string): Value {
  for (const key of path.split('.').filter(Boolean)) v = v === undefined || v === null ? undefined : v[key];
  return v;
}

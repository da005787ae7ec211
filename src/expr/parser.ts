// A recursive-descent parser for the expression inside `${{ }}`. Precedence, lowest first:
//   ||   &&   == !=   < <= > >=   !   member access / index / call   literals, identifiers, ( )
import { ExprError } from './errors.js';
import { tokenize, type Token, type TokenKind } from './lexer.js';

interface Span {
  start: number;
  end: number;
}
export type Expr =
  | ({ type: 'literal'; value: string | number | boolean | null } & Span)
  | ({ type: 'ident'; name: string } & Span)
  | ({ type: 'member'; object: Expr; property: string } & Span)
  | ({ type: 'index'; object: Expr; index: Expr } & Span)
  | ({ type: 'call'; name: string; args: Expr[] } & Span)
  | ({ type: 'not'; operand: Expr } & Span)
  | ({ type: 'binary'; op: BinaryOp; left: Expr; right: Expr } & Span);

export type BinaryOp = '||' | '&&' | '==' | '!=' | '<' | '<=' | '>' | '>=';

/** Nesting beyond this is refused, so a hostile expression cannot exhaust the stack. */
export const MAX_EXPR_DEPTH = 32;

const LEVELS: BinaryOp[][] = [['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>=']];

/**
 * Parses the expression that starts at `start` (just after `${{`) and ends at its `}}`.
 * Returns the AST and the offset just past the closing braces.
 */
export function parseExpression(source: string, start: number): { expr: Expr; end: number } {
  const p = new Parser(source, tokenize(source, start));
  return p.parseWhole(start);
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly source: string,
    private readonly tokens: Token[],
  ) {}

  parseWhole(start: number): { expr: Expr; end: number } {
    if (this.peek().kind === '}}') throw new ExprError('empty expression', this.source, start);
    const expr = this.binary(0);
    const close = this.next();
    if (close.kind === 'eof')
      throw new ExprError('expression is not closed with "}}"', this.source, start - 3);
    if (close.kind !== '}}') throw this.unexpected(close);
    return { expr, end: close.end };
  }

  private binary(level: number): Expr {
    if (level === LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    const ops = LEVELS[level] as BinaryOp[];
    while (ops.includes(this.peek().kind as BinaryOp)) {
      const op = this.next().kind as BinaryOp;
      const right = this.binary(level + 1);
      left = { type: 'binary', op, left, right, start: left.start, end: right.end };
    }
    return left;
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === '!') {
      this.next();
      const operand = this.nested(() => this.unary());
      return { type: 'not', operand, start: t.start, end: operand.end };
    }
    return this.postfix();
  }

  private postfix(): Expr {
    let expr = this.primary();
    for (;;) {
      const t = this.peek();
      if (t.kind === '.') {
        this.next();
        const name = this.next();
        if (name.kind !== 'ident' && name.kind !== 'true' && name.kind !== 'false' && name.kind !== 'null')
          throw this.unexpected(name, 'a property name');
        expr = { type: 'member', object: expr, property: name.value, start: expr.start, end: name.end };
      } else if (t.kind === '[') {
        this.next();
        const index = this.nested(() => this.binary(0));
        const close = this.expect(']');
        expr = { type: 'index', object: expr, index, start: expr.start, end: close.end };
      } else {
        return expr;
      }
    }
  }

  private primary(): Expr {
    const t = this.next();
    switch (t.kind) {
      case 'string':
        return { type: 'literal', value: t.value, start: t.start, end: t.end };
      case 'number':
        return { type: 'literal', value: Number(t.value), start: t.start, end: t.end };
      case 'true':
      case 'false':
        return { type: 'literal', value: t.kind === 'true', start: t.start, end: t.end };
      case 'null':
        return { type: 'literal', value: null, start: t.start, end: t.end };
      case '(': {
        const inner = this.nested(() => this.binary(0));
        this.expect(')');
        return inner;
      }
      case 'ident':
        if (this.peek().kind === '(') return this.call(t);
        return { type: 'ident', name: t.value, start: t.start, end: t.end };
      default:
        throw this.unexpected(t);
    }
  }

  private call(name: Token): Expr {
    this.next(); // (
    const args: Expr[] = [];
    if (this.peek().kind !== ')') {
      for (;;) {
        args.push(this.nested(() => this.binary(0)));
        if (this.peek().kind !== ',') break;
        this.next();
      }
    }
    const close = this.expect(')');
    return { type: 'call', name: name.value, args, start: name.start, end: close.end };
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_EXPR_DEPTH)
      throw new ExprError(`expression nests deeper than ${MAX_EXPR_DEPTH}`, this.source, this.peek().start);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private expect(kind: TokenKind): Token {
    const t = this.next();
    if (t.kind !== kind) throw this.unexpected(t, `"${kind}"`);
    return t;
  }

  private peek(): Token {
    return this.tokens[this.pos] as Token;
  }

  private next(): Token {
    const t = this.tokens[this.pos] as Token;
    if (t.kind !== 'eof') this.pos++;
    return t;
  }

  private unexpected(t: Token, wanted?: string): ExprError {
    const what =
      t.kind === 'eof'
        ? 'unexpected end of expression'
        : `unexpected ${JSON.stringify(this.source.slice(t.start, t.end))}`;
    return new ExprError(wanted ? `${what}, expected ${wanted}` : what, this.source, t.start);
  }
}

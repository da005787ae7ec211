// The places a value can take in a bash script (scan.ts finds them, escape.ts writes values for
// them), and the words admission refuses the others with.

export type Place =
  /** An unquoted word. `wordStart`: nothing of the word precedes the hole. */
  | { kind: 'word'; wordStart: boolean; forceQuote: boolean }
  | { kind: 'double' }
  | { kind: 'single' }
  /** Inside `$'...'`. */
  | { kind: 'ansi' }
  | { kind: 'heredoc'; delimiter: string; quoted: boolean; stripTabs: boolean };

export type Scan = { places: Place[] } | { refused: { hole: number; reason: string } };

export const REFUSALS = {
  comment:
    'a value inside a shell comment would run as code if it held a newline; move it out of the comment',
  arith:
    'a value inside an arithmetic context ($(( )), (( )), $[ ]) is evaluated by bash, which runs code such as a[$(cmd)]; pass it through env and check it in the script',
  param:
    'a value inside a parameter expansion ${...} follows quoting rules of its own; assign it to a variable first (X=${{ ... }}) and expand that',
  backquote: 'a value inside backquotes cannot be escaped reliably; use $( ) instead',
  dollar: 'a value right after $ would become part of a variable name or an expansion',
  backslash: 'a value right after an unescaped \\ would have its first character escaped',
  delimiter: 'the delimiter of a here-document cannot hold a value',
  testArith:
    'a value compared with -eq, -ne, -lt, -le, -gt or -ge inside [[ ]] is evaluated as arithmetic, which runs code; compare with [ ] instead',
  subscript:
    'a value inside an array subscript [ ] is evaluated as arithmetic by bash, which runs code such as a[$(cmd)]; pass it through env and check it in the script',
  nameOperand:
    'a value that names a variable (read, unset, declare, printf -v, a -v or -R test) can carry a subscript such as a[$(cmd)], which bash runs; pass it through env and check it in the script',
  evaluated:
    'a value given to eval or let, or declared with -i, -a, -A or -n, is evaluated by bash as code or arithmetic; pass it through env and check it in the script',
  unknownCommand:
    'a value given to a command whose name is known only when the script runs (an expansion, a value or a pattern) may reach eval or let, which run it as code; name the command in the script',
  shellScript:
    'a value given to sh -c or bash -c is run as a script; pass it after the script as an argument (bash -c \'... "$1"\' _ value) or through env',
  unbalanced: (what: string) =>
    `the script does not parse to its end as bash reads it (${what}), so where its values stand cannot be told; check its quotes, $( ), case ... esac and here-documents`,
} as const;

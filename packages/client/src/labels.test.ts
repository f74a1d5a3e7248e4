import { describe, expect, it } from 'vitest';
import {
  FieldSelectorParseError,
  SelectorParseError,
  escapeFieldValue,
  everything,
  fieldSelectorToString,
  isQualifiedName,
  isValidLabelValue,
  matchesFields,
  nothing,
  parseFieldSelector,
  parseSelector,
  selectorFromLabelSelector,
  selectorFromSet,
  selectorToString,
  type LabelSelector,
} from './labels.js';

const nameRegexMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueRegexMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseSelector → canonical string', () => {
  it.each([
    { name: 'empty selects everything', input: '', want: '' },
    { name: 'equality terms', input: 'x=a,y=b,z=c', want: 'x=a,y=b,z=c' },
    { name: 'sorted by key', input: 'z=c,x=a', want: 'x=a,z=c' },
    { name: 'not equals', input: 'x!=a,y=b', want: 'x!=a,y=b' },
    { name: 'double equals kept', input: 'x==a', want: 'x==a' },
    { name: 'empty value', input: 'x=', want: 'x=' },
    { name: 'empty value with spaces', input: 'x= ,z= ', want: 'x=,z=' },
    { name: 'whitespace around tokens', input: '  x  =  a , y != b ', want: 'x=a,y!=b' },
    { name: 'does not exist', input: '!x', want: '!x' },
    { name: 'exists', input: 'x', want: 'x' },
    { name: 'greater than / less than', input: 'x>1,z<5', want: 'x>1,z<5' },
    { name: 'in with values sorted and deduplicated', input: 'x in (c,a,b,a)', want: 'x in (a,b,c)' },
    { name: 'notin', input: 'x notin (b,a)', want: 'x notin (a,b)' },
    { name: 'in with empty value', input: 'x in (foo,,baz),y,z notin ()', want: 'x in (,baz,foo),y,z notin ()' },
    { name: 'in with leading comma', input: 'x in (,a)', want: 'x in (,a)' },
    { name: 'in with trailing comma', input: 'x in (a,)', want: 'x in (,a)' },
    { name: 'keywords as values', input: 'x in (in,notin)', want: 'x in (in,notin)' },
    { name: 'keyword as key', input: 'notin=in', want: 'notin=in' },
    { name: 'prefixed key (placement label)', input: 'controlcenter.hcc.dev/management-cluster=mgmt-1', want: 'controlcenter.hcc.dev/management-cluster=mgmt-1' },
    { name: 'mixed', input: 'environment in (production,qa),tier notin (frontend),!cordoned,partition', want: '!cordoned,environment in (production,qa),partition,tier notin (frontend)' },
  ])('$name', ({ input, want }) => {
    expect(selectorToString(parseSelector(input))).toBe(want);
  });
});

describe('parseSelector errors', () => {
  it.each([
    { name: 'double operator', input: 'x==a==b', want: "found '==', expected: ',' or 'end of string'" },
    { name: 'not with value', input: '!x=a', want: "found '=', expected: ',' or 'end of string'" },
    { name: 'lt needs integer', input: 'x<a', want: `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer` },
    {
      name: 'invalid value',
      input: 'x=a||y',
      want: `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${valueRegexMsg}`,
    },
    { name: 'value too long', input: `x=${'a'.repeat(64)}`, want: `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters` },
    { name: 'invalid key', input: '-x=a', want: `unable to parse requirement: <nil>: Invalid value: "-x": name part ${nameRegexMsg}` },
    {
      name: 'invalid key prefix',
      input: 'Foo.com/x=a',
      want: `unable to parse requirement: <nil>: Invalid value: "Foo.com/x": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    },
    { name: 'leading comma', input: ',x=a', want: "found ',', expected: !, identifier, or 'end of string'" },
    { name: 'trailing comma', input: 'x=a,', want: "found '', expected: identifier after ','" },
    { name: 'missing operator', input: 'x y', want: "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt" },
    { name: 'in without parenthesis', input: 'x in a', want: "unable to parse requirement: found 'a' expected: '('" },
    { name: 'unterminated set', input: 'x in (a', want: "unable to parse requirement: found '', expected: ',' or ')'" },
    { name: 'operator as value', input: 'x=(', want: "unable to parse requirement: found '(', expected: identifier" },
    { name: 'negative numbers are not label values', input: 'x>-5', want: `unable to parse requirement: values[0][x]: Invalid value: "-5": ${valueRegexMsg}` },
    { name: 'bang without key', input: '!', want: "unable to parse requirement: found '', expected: identifier" },
  ])('$name', ({ input, want }) => {
    expect(() => parseSelector(input)).toThrowError(new SelectorParseError(want));
  });
});

describe('Selector.matches', () => {
  it.each([
    { name: 'empty matches anything', input: { sel: '', labels: { x: 'y' } }, want: true },
    { name: 'empty matches undefined labels', input: { sel: '', labels: undefined }, want: true },
    { name: 'equals', input: { sel: 'x=y', labels: { x: 'y' } }, want: true },
    { name: 'equals two', input: { sel: 'x=y,z=w', labels: { x: 'y', z: 'w' } }, want: true },
    { name: 'not equals both', input: { sel: 'x!=y,z!=w', labels: { x: 'z', z: 'a' } }, want: true },
    { name: 'keyword exact match', input: { sel: 'notin=in', labels: { notin: 'in' } }, want: true },
    { name: 'exists', input: { sel: 'x', labels: { x: 'z' } }, want: true },
    { name: 'does not exist', input: { sel: '!x', labels: { y: 'z' } }, want: true },
    { name: 'gt', input: { sel: 'x>1', labels: { x: '2' } }, want: true },
    { name: 'lt', input: { sel: 'x<1', labels: { x: '0' } }, want: true },
    { name: 'gt large', input: { sel: 'x>9007199254740993', labels: { x: '9007199254740994' } }, want: true },
    { name: 'in', input: { sel: 'x in (a,b)', labels: { x: 'b' } }, want: true },
    { name: 'notin without key', input: { sel: 'x notin (a)', labels: {} }, want: true },
    { name: 'not equals without key', input: { sel: 'x!=a', labels: undefined }, want: true },
    { name: 'in empty value matches empty label', input: { sel: 'x in ()', labels: { x: '' } }, want: true },
    { name: 'equals missing', input: { sel: 'x=z', labels: {} }, want: false },
    { name: 'equals other value', input: { sel: 'x=y', labels: { x: 'z' } }, want: false },
    { name: 'one of two fails', input: { sel: 'x=y,z=w', labels: { x: 'w', z: 'w' } }, want: false },
    { name: 'not equals hit', input: { sel: 'x!=y,z!=w', labels: { x: 'z', z: 'w' } }, want: false },
    { name: 'exists missing', input: { sel: 'x', labels: { y: 'z' } }, want: false },
    { name: 'does not exist present', input: { sel: '!x', labels: { x: 'z' } }, want: false },
    { name: 'gt fails', input: { sel: 'x>1', labels: { x: '0' } }, want: false },
    { name: 'lt fails', input: { sel: 'x<1', labels: { x: '2' } }, want: false },
    { name: 'gt non integer label', input: { sel: 'x>1', labels: { x: 'abc' } }, want: false },
    { name: 'gt missing label', input: { sel: 'x>1', labels: {} }, want: false },
    { name: 'notin hit', input: { sel: 'x notin (a,b)', labels: { x: 'a' } }, want: false },
    { name: 'inherited keys do not count', input: { sel: 'toString', labels: {} }, want: false },
  ])('$name', ({ input, want }) => {
    expect(parseSelector(input.sel).matches(input.labels)).toBe(want);
  });
});

describe('Selector properties', () => {
  it.each([
    { name: 'parsed empty', input: parseSelector(''), want: { empty: true, nothing: false, str: '', exact: undefined } },
    { name: 'everything', input: everything(), want: { empty: true, nothing: false, str: '', exact: undefined } },
    { name: 'nothing', input: nothing(), want: { empty: false, nothing: true, str: '', exact: undefined } },
    { name: 'exact =', input: parseSelector('x=a'), want: { empty: false, nothing: false, str: 'x=a', exact: 'a' } },
    { name: 'exact in one', input: parseSelector('x in (a)'), want: { empty: false, nothing: false, str: 'x in (a)', exact: 'a' } },
    { name: 'in two is not exact', input: parseSelector('x in (a,b)'), want: { empty: false, nothing: false, str: 'x in (a,b)', exact: undefined } },
    { name: '!= is not exact', input: parseSelector('x!=a'), want: { empty: false, nothing: false, str: 'x!=a', exact: undefined } },
    { name: 'from set', input: selectorFromSet({ b: '2', a: '1' }), want: { empty: false, nothing: false, str: 'a=1,b=2', exact: undefined } },
  ])('$name', ({ input, want }) => {
    expect({ empty: input.empty, nothing: input.matchesNothing, str: input.toString(), exact: input.requiresExactMatch('x') }).toEqual(want);
  });

  it('nothing matches no labels', () => {
    expect(nothing().matches({})).toBe(false);
  });
});

describe('selectorFromLabelSelector', () => {
  it.each<{ name: string; input: LabelSelector | null | undefined; want: { str: string; empty: boolean; nothing: boolean; match: boolean } }>([
    { name: 'null selects nothing', input: null, want: { str: '', empty: false, nothing: true, match: false } },
    { name: 'undefined selects nothing', input: undefined, want: { str: '', empty: false, nothing: true, match: false } },
    { name: 'empty selects everything', input: {}, want: { str: '', empty: true, nothing: false, match: true } },
    { name: 'matchLabels', input: { matchLabels: { env: 'prod', tier: 'db' } }, want: { str: 'env=prod,tier=db', empty: false, nothing: false, match: true } },
    {
      name: 'expressions',
      input: {
        matchExpressions: [
          { key: 'region', operator: 'In', values: ['us-east-1', 'eu-west-1'] },
          { key: 'cordoned', operator: 'DoesNotExist' },
          { key: 'env', operator: 'NotIn', values: ['dev'] },
          { key: 'tier', operator: 'Exists' },
        ],
      },
      want: { str: '!cordoned,env notin (dev),region in (eu-west-1,us-east-1),tier', empty: false, nothing: false, match: true },
    },
    {
      name: 'labels and expressions combined',
      input: { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'region', operator: 'In', values: ['ap-south-1'] }] },
      want: { str: 'env=prod,region in (ap-south-1)', empty: false, nothing: false, match: false },
    },
  ])('$name', ({ input, want }) => {
    const s = selectorFromLabelSelector(input);
    const labels = { env: 'prod', tier: 'db', region: 'us-east-1' };
    expect({ str: s.toString(), empty: s.empty, nothing: s.matchesNothing, match: s.matches(labels) }).toEqual(want);
  });

  it.each<{ name: string; input: LabelSelector; want: string }>([
    { name: 'bad operator', input: { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] }, want: '"Equals" is not a valid label selector operator' },
    { name: 'in without values', input: { matchExpressions: [{ key: 'a', operator: 'In' }] }, want: "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty" },
    { name: 'exists with values', input: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, want: 'values: Invalid value: ["x"]: values set must be empty for exists and does not exist' },
    { name: 'bad key', input: { matchLabels: { 'a b': 'x' } }, want: `key: Invalid value: "a b": name part ${nameRegexMsg}` },
    {
      name: 'several errors are aggregated',
      input: { matchExpressions: [{ key: '_a', operator: 'In', values: [] }] },
      want: `[key: Invalid value: "_a": name part ${nameRegexMsg}, values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty]`,
    },
  ])('rejects $name', ({ input, want }) => {
    expect(() => selectorFromLabelSelector(input)).toThrowError(new SelectorParseError(want));
  });
});

describe('key and value validation', () => {
  it.each([
    { name: 'simple', input: 'app', want: [] },
    { name: 'prefixed', input: 'controlcenter.hcc.dev/management-cluster', want: [] },
    { name: 'empty prefix', input: '/x', want: ['prefix part must be non-empty'] },
    { name: 'empty name', input: 'a.io/', want: ['name part must be non-empty', `name part ${nameRegexMsg}`] },
    { name: 'name too long', input: 'a'.repeat(64), want: ['name part must be no more than 63 characters'] },
    {
      name: 'two slashes',
      input: 'a/b/c',
      want: [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    },
  ])('key $name', ({ input, want }) => {
    expect(isQualifiedName(input)).toEqual(want);
  });

  it.each([
    { name: 'empty', input: '', want: [] },
    { name: 'dots and underscores', input: 'a.b_c-d', want: [] },
    { name: '63 chars', input: 'a'.repeat(63), want: [] },
    { name: 'trailing dash', input: 'a-', want: [valueRegexMsg] },
    { name: 'non ascii', input: 'é', want: [valueRegexMsg] },
  ])('value $name', ({ input, want }) => {
    expect(isValidLabelValue(input)).toEqual(want);
  });
});

describe('parseFieldSelector', () => {
  it.each([
    { name: 'empty', input: '', want: [] },
    { name: 'single', input: 'metadata.name=example', want: [{ field: 'metadata.name', op: '=', value: 'example' }] },
    { name: 'double equals', input: 'metadata.name==example', want: [{ field: 'metadata.name', op: '==', value: 'example' }] },
    { name: 'not equals', input: 'status.phase!=Running', want: [{ field: 'status.phase', op: '!=', value: 'Running' }] },
    {
      name: 'several sorted',
      input: 'metadata.namespace=clusters,metadata.name=example',
      want: [
        { field: 'metadata.name', op: '=', value: 'example' },
        { field: 'metadata.namespace', op: '=', value: 'clusters' },
      ],
    },
    { name: 'empty value', input: 'spec.nodeName=', want: [{ field: 'spec.nodeName', op: '=', value: '' }] },
    { name: 'escaped comma and equals', input: 'a=x\\,y\\=z\\\\', want: [{ field: 'a', op: '=', value: 'x,y=z\\' }] },
    { name: 'empty terms skipped', input: 'a=b,,', want: [{ field: 'a', op: '=', value: 'b' }] },
    { name: 'whitespace kept', input: 'a = b', want: [{ field: 'a ', op: '=', value: ' b' }] },
  ])('$name', ({ input, want }) => {
    expect(parseFieldSelector(input)).toEqual(want);
  });

  it.each([
    { name: 'no operator', input: 'status.phase', want: "invalid selector: 'status.phase'; can't understand 'status.phase'" },
    { name: 'unescaped equals', input: 'a=b=c', want: 'invalid field selector: unescaped character in value: 61' },
    { name: 'triple equals', input: 'a!==b', want: 'invalid field selector: unescaped character in value: 61' },
    { name: 'bad escape', input: 'a=b\\x', want: 'invalid field selector: invalid escape sequence: \\x' },
    { name: 'trailing backslash', input: 'a=b\\', want: 'invalid field selector: invalid escape sequence: \\' },
  ])('rejects $name', ({ input, want }) => {
    expect(() => parseFieldSelector(input)).toThrowError(new FieldSelectorParseError(want));
  });
});

describe('matchesFields', () => {
  const fields: Record<string, string> = { 'metadata.name': 'example', 'metadata.namespace': 'clusters' };
  const get = (p: string): string | undefined => fields[p];
  it.each([
    { name: 'no requirements', input: '', want: true },
    { name: 'equal', input: 'metadata.name=example', want: true },
    { name: 'equal other', input: 'metadata.name=other', want: false },
    { name: 'not equal', input: 'metadata.name!=other', want: true },
    { name: 'not equal hit', input: 'metadata.name!=example', want: false },
    { name: 'missing field reads empty', input: 'spec.nodeName=', want: true },
    { name: 'missing field not equal', input: 'spec.nodeName!=x', want: true },
    { name: 'and of terms', input: 'metadata.name=example,metadata.namespace=other', want: false },
  ])('$name', ({ input, want }) => {
    expect(matchesFields(parseFieldSelector(input), get)).toBe(want);
  });

  it.each([
    { name: 'round trip with escapes', input: 'b!=x\\,y,a==1', want: 'a=1,b!=x\\,y' },
    { name: 'empty', input: '', want: '' },
  ])('toString $name', ({ input, want }) => {
    expect(fieldSelectorToString(parseFieldSelector(input))).toBe(want);
  });

  it.each([
    { name: 'plain', input: 'abc', want: 'abc' },
    { name: 'specials', input: 'a=b,c\\', want: 'a\\=b\\,c\\\\' },
  ])('escapeFieldValue $name', ({ input, want }) => {
    expect(escapeFieldValue(input)).toBe(want);
  });
});

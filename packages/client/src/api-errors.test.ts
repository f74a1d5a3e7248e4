import { describe, expect, it } from 'vitest';
import { ApiError, isAlreadyExists, isConflict, isGone, isInvalid, isNotFound, problemText, RequestError } from './api-errors.js';

const st = (code: number, reason: string) => ({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: `m ${reason}` });

describe('ApiError predicates', () => {
  it.each([
    { name: '404 NotFound', input: new ApiError(404, st(404, 'NotFound')), want: { notFound: true, conflict: false, exists: false, gone: false, invalid: false } },
    { name: '409 Conflict', input: new ApiError(409, st(409, 'Conflict')), want: { notFound: false, conflict: true, exists: false, gone: false, invalid: false } },
    { name: '409 AlreadyExists is not a conflict', input: new ApiError(409, st(409, 'AlreadyExists')), want: { notFound: false, conflict: false, exists: true, gone: false, invalid: false } },
    { name: '410 Expired', input: new ApiError(410, st(410, 'Expired')), want: { notFound: false, conflict: false, exists: false, gone: true, invalid: false } },
    { name: '410 Gone', input: new ApiError(410, st(410, 'Gone')), want: { notFound: false, conflict: false, exists: false, gone: true, invalid: false } },
    { name: '422 Invalid', input: new ApiError(422, st(422, 'Invalid')), want: { notFound: false, conflict: false, exists: false, gone: false, invalid: true } },
    { name: 'plain-text 404 falls back to the code', input: new ApiError(404, '404 page not found'), want: { notFound: true, conflict: false, exists: false, gone: false, invalid: false } },
    { name: 'Status without reason falls back to the code', input: new ApiError(409, { kind: 'Status', code: 409 }), want: { notFound: false, conflict: true, exists: false, gone: false, invalid: false } },
    { name: 'not an ApiError', input: new RequestError('boom'), want: { notFound: false, conflict: false, exists: false, gone: false, invalid: false } },
    { name: 'not an error', input: undefined, want: { notFound: false, conflict: false, exists: false, gone: false, invalid: false } },
  ])('$name', ({ input, want }) => {
    expect({
      notFound: isNotFound(input),
      conflict: isConflict(input),
      exists: isAlreadyExists(input),
      gone: isGone(input),
      invalid: isInvalid(input),
    }).toEqual(want);
  });

  it('carries the Status body', () => {
    const body = { ...st(404, 'NotFound'), message: 'hostedclusters.hypershift.openshift.io "x" not found', details: { name: 'x', group: 'hypershift.openshift.io', kind: 'hostedclusters' } };
    const err = new ApiError(404, body);
    expect(err).toMatchObject({ name: 'ApiError', code: 404, reason: 'NotFound', message: body.message, details: body.details, status: body });
  });

  it('synthesizes a Status from a non-Status body', () => {
    const err = new ApiError(503, 'upstream unavailable\n');
    expect(err).toMatchObject({ code: 503, reason: 'ServiceUnavailable', message: 'upstream unavailable' });
    expect(err.status).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
  });
});

describe('problemText', () => {
  it('gives an API error its HTTP code (a Status message alone may not say it), other errors their message', () => {
    expect(problemText(new ApiError(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }))).toBe('401 Unauthorized');
    expect(problemText(new ApiError(503, 'busy'))).toBe('503 busy');
    expect(problemText(new Error('connect ECONNREFUSED 127.0.0.1:1'))).toBe('connect ECONNREFUSED 127.0.0.1:1');
    expect(problemText('x')).toBe('x');
  });
});

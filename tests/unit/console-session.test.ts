import { expect, test } from "bun:test";
import { consoleKeys } from "../../services/gateway/console/session.ts";

const token = "unit-admin-token-0123456789";

test("each value the console signs is accepted only as its own kind", () => {
  const keys = consoleKeys(token);
  const session = keys.issueSession();
  const form = keys.issueSignInForm();
  const sid = keys.session(session)!.sid;
  const formId = keys.signInForm(form)!;
  expect([typeof sid, typeof formId]).toEqual(["string", "string"]);
  const values = {
    form,
    formCsrf: keys.csrfOf("sign-in-form", formId),
    sessionCsrf: keys.csrfOf("session", sid),
    message: keys.sealMessage(sid, "notice\nhello"),
    // The same id under the other kind: what the old single key made interchangeable.
    formCsrfOfSessionId: keys.csrfOf("sign-in-form", sid),
  };
  for (const [name, value] of Object.entries(values)) expect([name, keys.session(value)]).toEqual([name, undefined]);
  expect(keys.signInForm(session)).toBeUndefined();
  // A session's CSRF token is not a sign-in form's, nor the other way round.
  expect(keys.checkCsrf("session", formId, values.formCsrf)).toBe(false);
  expect(keys.checkCsrf("sign-in-form", sid, values.sessionCsrf)).toBe(false);
  expect(keys.checkCsrf("session", sid, values.sessionCsrf)).toBe(true);
  // A form cookie rewritten to claim the session kind fails its signature.
  const [, exp, id, sig] = form.split(".");
  expect(keys.session(`s2.${exp}.${id}.${sig}`)).toBeUndefined();
  // Another admin token's session is nothing here.
  expect(keys.session(consoleKeys("another-admin-token-0123").issueSession())).toBeUndefined();
});

import { UserIdSchema, describeUserContext } from './user-context';

describe('describeUserContext', () => {
  it('is empty without profile fields, so prompts stay unchanged', () => {
    expect(describeUserContext({})).toBe('');
    expect(describeUserContext({ user_id: 'ada', name: '', note: null })).toBe('');
  });

  it('fills the fixed template with the fields the profile has, known ones named, others as is', () => {
    expect(
      describeUserContext({ user_id: 'ada', name: 'Ada', interests: ['engines', 'poetry'], team: { id: 7 } }),
    ).toBe(
      'About the user (from their profile):\n- Name: Ada\n- Interests: engines, poetry\n- team: {"id":7}',
    );
  });

  it('caps what a large profile adds to a prompt', () => {
    const text = describeUserContext({ bio: 'x'.repeat(10_000) });
    expect(text.length).toBe(4000);
    expect(text.endsWith('...')).toBe(true);
  });
});

describe('UserIdSchema', () => {
  it('takes 1..200 characters', () => {
    expect(UserIdSchema.safeParse('a').success).toBe(true);
    expect(UserIdSchema.safeParse('').success).toBe(false);
    expect(UserIdSchema.safeParse('u'.repeat(201)).success).toBe(false);
    expect(UserIdSchema.safeParse(7).success).toBe(false);
  });
});

/** The support desk's database: a fresh copy per rollout (the environment's state), which the rubric checks. */
export const PLANS = ['monthly', 'yearly', 'family'] as const;
export type Plan = (typeof PLANS)[number];

export interface Account {
  name: string;
  plan: Plan;
}

export const ACCOUNTS: Readonly<Record<string, Readonly<Account>>> = {
  'A-1001': { name: 'Ada Lovelace', plan: 'monthly' },
  'A-1002': { name: 'Grace Hopper', plan: 'monthly' },
  'A-1003': { name: 'Alan Turing', plan: 'yearly' },
  'A-1004': { name: 'Edsger Dijkstra', plan: 'family' },
};

/** What each customer knows and wants; only the simulated user sees it (example.info.user). */
export const CUSTOMERS: readonly { account_id: string; name: string; wants: Plan }[] = [
  { account_id: 'A-1002', name: 'Grace Hopper', wants: 'yearly' },
  { account_id: 'A-1003', name: 'Alan Turing', wants: 'monthly' },
  { account_id: 'A-1004', name: 'Edsger Dijkstra', wants: 'yearly' },
];

/**
 * How often a read-then-conditional-write is tried before giving up with 503. Each lost round means
 * another writer's change landed, so N concurrent writers all land within N rounds.
 */
export const maxRounds = 50;

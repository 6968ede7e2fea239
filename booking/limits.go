package booking

// The sane ranges of the numbers clients give. The front ends check them
// at the edge (a 400 naming the field), the OpenAPI document states them,
// and so every store receives the same, small, numbers: nothing near a
// column's limit (PostgreSQL's int4) or absurd (an unpaid hold of years).
const (
	// MaxID is the largest id accepted: 2^53-1, the largest integer a
	// JSON number keeps exactly in every client.
	MaxID = 1<<53 - 1

	MinCapacity, MaxCapacity       = 1, 10_000
	MinSlotMinutes, MaxSlotMinutes = 1, 24 * 60
	MinHorizonDays, MaxHorizonDays = 1, 366
	MinHoldMinutes, MaxHoldMinutes = 1, 24 * 60
	// MaxFeeCents bounds a fee and a payment's amount (one million in the
	// currency's main unit).
	MaxFeeCents = 100_000_000
)

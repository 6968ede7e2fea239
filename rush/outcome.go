package rush

// Endpoint is a kind of request the generator sends; latencies and outcomes
// are recorded per endpoint because their costs differ by orders of
// magnitude (a refused booking answered from memory vs a committed one).
type Endpoint int

// The endpoints rush drives.
const (
	EndpointBook  Endpoint = iota // POST /api/appointments
	EndpointList                  // GET /api/doctors/{id}/slots
	EndpointEcho                  // POST /bench/echo (no database)
	EndpointQueue                 // POST and GET /api/openings/{id}/queue
	numEndpoints
)

var endpointNames = [numEndpoints]string{"book", "list", "echo", "queue"}

// String is the endpoint's short name, used in the summary and the report.
func (e Endpoint) String() string { return endpointNames[e] }

// Outcome classifies one HTTP exchange. The 409 problems are told apart
// because they mean very different things under a rush: slot-full is the
// expected answer of a losing click, already-booked or key-in-use hint at a
// client or server bug.
type Outcome int

// The outcomes. Keep outcomeNames in step.
const (
	OutCreated       Outcome = iota // 201: a new appointment
	OutReplayed                     // 200 on a booking: replay of the same key
	OutOK                           // 200 on a read or echo
	OutNotModified                  // 304 on a read sent with If-None-Match
	OutSlotFull                     // 409 slot-full
	OutAlreadyBooked                // 409 already-booked
	OutNotOpenYet                   // 409 not-open-yet
	OutSlotClosed                   // 409 slot-closed
	OutOverlapping                  // 409 overlapping-appointment
	OutKeyInUse                     // 409 idempotency-key-in-use
	OutNotAdmitted                  // 409 not-admitted: an opening's slot booked without its admission
	OutConflict                     // another 409
	OutRateLimited                  // 429
	OutOverloaded                   // 503 overloaded
	OutUnavailable                  // 503 unavailable (or another 503)
	OutClientError                  // another 4xx: a bug in rush or the server
	OutServerError                  // 500 and other 5xx: never acceptable
	OutTimeout                      // no answer within --timeout
	OutTransport                    // connection refused, reset…
	numOutcomes
)

var outcomeNames = [numOutcomes]string{
	"201 created", "200 replayed", "200 ok", "304 not-modified",
	"409 slot-full", "409 already-booked", "409 not-open-yet", "409 slot-closed",
	"409 overlapping", "409 key-in-use", "409 not-admitted", "409 other", "429 rate-limited",
	"503 overloaded", "503 unavailable", "4xx other", "5xx", "timeout", "transport error",
}

// String is the outcome's label in the summary and the report.
func (o Outcome) String() string { return outcomeNames[o] }

// isError reports whether o is something a correct server under load should
// never answer (as opposed to a refusal that is part of the rush).
func (o Outcome) isError() bool {
	switch o {
	case OutClientError, OutServerError, OutTransport, OutConflict:
		return true
	}
	return false
}

// problemOutcome maps a problem type of a 409 to its outcome.
func problemOutcome(typ string) Outcome {
	switch typ {
	case "/problems/slot-full":
		return OutSlotFull
	case "/problems/already-booked":
		return OutAlreadyBooked
	case "/problems/not-open-yet":
		return OutNotOpenYet
	case "/problems/slot-closed":
		return OutSlotClosed
	case "/problems/overlapping-appointment":
		return OutOverlapping
	case "/problems/idempotency-key-in-use":
		return OutKeyInUse
	case "/problems/not-admitted":
		return OutNotAdmitted
	}
	return OutConflict
}

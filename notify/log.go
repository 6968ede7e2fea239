package notify

import (
	"context"
	"log/slog"
)

// Log is the default notifier: it delivers nothing and writes one structured
// line per message instead, so that a fresh install shows what it would
// have sent. Contact data appear masked and login codes not at all, unless
// ShowCodes is set.
type Log struct {
	// Logger receives the lines; nil means slog.Default().
	Logger *slog.Logger
	// ShowCodes logs login codes, so that a demo user can sign in without
	// a mail server. Never set it in production: anyone who reads the logs
	// could then sign in as any patient.
	ShowCodes bool
}

// Notify logs m at level Info with the message "notification". It never fails.
func (l *Log) Notify(ctx context.Context, m Message) error {
	_, err := l.Send(ctx, m)
	return err
}

// Send logs m (see Notify).
func (l *Log) Send(ctx context.Context, m Message) (Receipt, error) {
	logger := l.Logger
	if logger == nil {
		logger = slog.Default()
	}
	subject := Subject(m)
	attrs := []slog.Attr{
		slog.String("kind", m.Kind),
		slog.Int64("appointmentId", m.AppointmentID),
		slog.Int64("patientId", m.PatientID),
	}
	if !m.StartAt.IsZero() {
		attrs = append(attrs, slog.String("localTime", LocalTime(m.StartAt, m.TimeZone)))
	}
	if m.DoctorName != "" {
		attrs = append(attrs, slog.String("doctor", m.DoctorName))
	}
	if m.QueueNumber > 0 {
		attrs = append(attrs, slog.Int("queueNumber", m.QueueNumber))
	}
	if m.Reason != "" {
		attrs = append(attrs, slog.String("reason", m.Reason))
	}
	if m.Phone != "" {
		attrs = append(attrs, slog.String("phone", MaskPhone(m.Phone)))
	}
	if m.Email != "" {
		attrs = append(attrs, slog.String("email", MaskEmail(m.Email)))
	}
	// The subject, not the body: a login-code body contains the code.
	attrs = append(attrs,
		slog.String("subject", subject),
		slog.String("idempotencyKey", m.IdempotencyKey),
	)
	if l.ShowCodes && m.Kind == KindLoginCode && m.Code != "" {
		attrs = append(attrs, slog.String("code", m.Code))
	}
	logger.LogAttrs(ctx, slog.LevelInfo, "notification", attrs...)
	return Receipt{Channel: ChannelLog}, nil
}

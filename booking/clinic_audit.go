package booking

import (
	"context"
	"time"
)

// The audit entries of running a clinic (editing, policies, closures), for
// both stores: ids and states only, never a patient's name or contacts.

// EntityPolicy is the clinic's default policy (one row, id 1).
const EntityPolicy = "policy"

// SuspensionState is what the log keeps of a suspension or closure.
func SuspensionState(s Suspension) any {
	return map[string]any{"scope": s.Scope, "doctorId": s.DoctorID, "departmentId": s.DepartmentID,
		"from": s.From, "to": s.To, "lifted": s.LiftedAt != nil}
}

// AuditLift records a lifted suspension and how many slots reopened.
func AuditLift(ctx context.Context, now time.Time, before Suspension, res LiftResult) AuditEntry {
	after := SuspensionState(res.Suspension).(map[string]any)
	after["slotsReopened"] = res.SlotsReopened
	return Audit(ctx, now, AuditChange{Entity: EntitySuspension, ID: before.ID, Action: "lift", Before: SuspensionState(before), After: after})
}

// AuditDepartmentUpdate records a department's rename.
func AuditDepartmentUpdate(ctx context.Context, now time.Time, before, after Department) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityDepartment, ID: after.ID, Action: "update",
		Before: map[string]any{"name": before.Name}, After: map[string]any{"name": after.Name}})
}

// AuditDoctorUpdate records a doctor's change (department, activity).
func AuditDoctorUpdate(ctx context.Context, now time.Time, before, after Doctor) AuditEntry {
	st := func(d Doctor) any { return map[string]any{"departmentId": d.DepartmentID, "active": d.Active} }
	return Audit(ctx, now, AuditChange{Entity: EntityDoctor, ID: after.ID, Action: "update", Before: st(before), After: st(after)})
}

// AuditPatientUpdate records a patient's change: the activity, and which
// personal fields changed (their names, not their values).
func AuditPatientUpdate(ctx context.Context, now time.Time, before, after Patient) AuditEntry {
	var changed []string
	for _, f := range []struct {
		name string
		a, b string
	}{{"name", before.Name, after.Name}, {"phone", before.Phone, after.Phone}, {"email", before.Email, after.Email}} {
		if f.a != f.b {
			changed = append(changed, f.name)
		}
	}
	return Audit(ctx, now, AuditChange{Entity: EntityPatient, ID: after.ID, Action: "update",
		Before: map[string]any{"active": before.Active}, After: map[string]any{"active": after.Active, "changed": changed}})
}

// scheduleState is what the log keeps of a schedule.
func scheduleState(sc Schedule) any {
	return map[string]any{"doctorId": sc.DoctorID, "weekdays": sc.Weekdays, "start": sc.StartTime, "end": sc.EndTime,
		"slotMinutes": sc.SlotMinutes, "capacity": sc.Capacity, "endDate": sc.EndDate, "policy": sc.Policy}
}

// AuditScheduleSaved records a created (before nil) or edited schedule.
func AuditScheduleSaved(ctx context.Context, now time.Time, before *Schedule, after Schedule) AuditEntry {
	if before == nil {
		return Audit(ctx, now, AuditChange{Entity: EntitySchedule, ID: after.ID, Action: "create", After: scheduleState(after)})
	}
	return Audit(ctx, now, AuditChange{Entity: EntitySchedule, ID: after.ID, Action: "update", Before: scheduleState(*before), After: scheduleState(after)})
}

// AuditFreeSlotsDeleted records the free future slots an edited schedule
// dropped before regenerating them.
func AuditFreeSlotsDeleted(ctx context.Context, now time.Time, scheduleID int64, n int) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntitySchedule, ID: scheduleID, Action: "delete-free-slots", After: map[string]any{"deleted": n}})
}

// AuditPolicy records the clinic's default policy replaced.
func AuditPolicy(ctx context.Context, now time.Time, before, after Policy) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityPolicy, ID: 1, Action: "update", Before: before, After: after})
}

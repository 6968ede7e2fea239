--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: btree_gist; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;


--
-- Name: EXTENSION btree_gist; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION btree_gist IS 'support for indexing common datatypes in GiST';


--
-- Name: river_job_state; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.river_job_state AS ENUM (
    'available',
    'cancelled',
    'completed',
    'discarded',
    'pending',
    'retryable',
    'running',
    'scheduled'
);


--
-- Name: river_job_state_in_bitmask(bit, public.river_job_state); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.river_job_state_in_bitmask(bitmask bit, state public.river_job_state) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT CASE state
        WHEN 'available' THEN get_bit(bitmask, 7)
        WHEN 'cancelled' THEN get_bit(bitmask, 6)
        WHEN 'completed' THEN get_bit(bitmask, 5)
        WHEN 'discarded' THEN get_bit(bitmask, 4)
        WHEN 'pending'   THEN get_bit(bitmask, 3)
        WHEN 'retryable' THEN get_bit(bitmask, 2)
        WHEN 'running'   THEN get_bit(bitmask, 1)
        WHEN 'scheduled' THEN get_bit(bitmask, 0)
        ELSE 0
    END = 1;
$$;


--
-- Name: round_quota_release(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.round_quota_release() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    UPDATE round_quotas SET used = used - 1
    WHERE round_id = NEW.round_id AND patient_id = NEW.patient_id;
    RETURN NULL;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: appointments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.appointments (
    id bigint NOT NULL,
    slot_id bigint NOT NULL,
    patient_id bigint NOT NULL,
    status text NOT NULL,
    queue_no integer NOT NULL,
    start_at timestamp with time zone NOT NULL,
    end_at timestamp with time zone NOT NULL,
    idempotency_key text NOT NULL,
    fingerprint text NOT NULL,
    hold_expires_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    round_id bigint,
    CONSTRAINT appointments_check CHECK (((status <> 'HELD'::text) OR (hold_expires_at IS NOT NULL))),
    CONSTRAINT appointments_idempotency_key_check CHECK (((length(idempotency_key) >= 1) AND (length(idempotency_key) <= 64))),
    CONSTRAINT appointments_queue_no_check CHECK ((queue_no >= 1)),
    CONSTRAINT appointments_status_check CHECK ((status = ANY (ARRAY['HELD'::text, 'BOOKED'::text, 'CANCELLED'::text, 'EXPIRED'::text, 'COMPLETED'::text, 'NO_SHOW'::text])))
);


--
-- Name: appointments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.appointments ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.appointments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id bigint NOT NULL,
    at timestamp with time zone NOT NULL,
    actor_role text NOT NULL,
    actor_id text NOT NULL,
    entity text NOT NULL,
    entity_id bigint NOT NULL,
    action text NOT NULL,
    before jsonb,
    after jsonb,
    patient_id bigint DEFAULT 0 NOT NULL
);


--
-- Name: audit_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.audit_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: calendar_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.calendar_tokens (
    patient_id bigint NOT NULL,
    token_hash text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: clinic_policy; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.clinic_policy (
    id integer NOT NULL,
    max_active integer NOT NULL,
    max_per_day integer NOT NULL,
    cancel_cutoff_hours integer NOT NULL,
    no_show_limit integer NOT NULL,
    no_show_block_days integer NOT NULL,
    CONSTRAINT clinic_policy_one CHECK ((id = 1))
);


--
-- Name: clinic_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.clinic_settings (
    name text NOT NULL,
    value text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: data_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.data_keys (
    key_id integer NOT NULL,
    check_value bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: departments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.departments (
    id bigint NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: departments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.departments ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.departments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: goose_db_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.goose_db_version (
    id integer NOT NULL,
    version_id bigint NOT NULL,
    is_applied boolean NOT NULL,
    tstamp timestamp without time zone DEFAULT now() NOT NULL
);


--
-- Name: goose_db_version_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.goose_db_version ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.goose_db_version_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: login_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.login_codes (
    id bigint NOT NULL,
    phone_key text NOT NULL,
    code_hash text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    used_at timestamp with time zone,
    CONSTRAINT login_codes_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT login_codes_expiry_check CHECK ((expires_at > created_at))
);


--
-- Name: login_codes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.login_codes ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.login_codes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: outbox_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outbox_events (
    id bigint NOT NULL,
    type text NOT NULL,
    appointment_id bigint NOT NULL,
    slot_id bigint NOT NULL,
    patient_id bigint NOT NULL,
    status text NOT NULL,
    suspension_id bigint,
    hold_expires_at timestamp with time zone,
    occurred_at timestamp with time zone NOT NULL
);


--
-- Name: outbox_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.outbox_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_events_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.outbox_events_id_seq OWNED BY public.outbox_events.id;


--
-- Name: patients; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.patients (
    id bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    language text DEFAULT ''::text NOT NULL,
    active boolean DEFAULT true NOT NULL,
    name_sealed bytea,
    phone_sealed bytea,
    email_sealed bytea,
    phone_index bytea,
    email_index bytea,
    seal_key integer DEFAULT 0 NOT NULL,
    erased_at timestamp with time zone,
    CONSTRAINT patients_language_check CHECK ((language = ANY (ARRAY[''::text, 'en'::text, 'zh-Hans'::text, 'vi'::text, 'fr'::text])))
);


--
-- Name: patients_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.patients ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.patients_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: payment_conflicts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.payment_conflicts (
    id bigint NOT NULL,
    trade_no text NOT NULL,
    appointment_id bigint NOT NULL,
    amount_cents bigint NOT NULL,
    received_at timestamp with time zone NOT NULL
);


--
-- Name: payment_conflicts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.payment_conflicts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.payment_conflicts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: payments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.payments (
    id bigint NOT NULL,
    trade_no text NOT NULL,
    appointment_id bigint NOT NULL,
    amount_cents bigint NOT NULL,
    outcome text NOT NULL,
    reason text,
    received_at timestamp with time zone NOT NULL,
    refunded_at timestamp with time zone,
    refund_ref text,
    CONSTRAINT payments_outcome_check CHECK ((outcome = ANY (ARRAY['applied'::text, 'needs-refund'::text]))),
    CONSTRAINT payments_refund_check CHECK ((((refunded_at IS NULL) = (refund_ref IS NULL)) AND ((refunded_at IS NULL) OR (outcome = 'needs-refund'::text))))
);


--
-- Name: payments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.payments ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.payments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: reconcile_runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.reconcile_runs (
    id bigint NOT NULL,
    checked_at timestamp with time zone NOT NULL,
    violations integer NOT NULL,
    pending integer NOT NULL,
    kinds jsonb
);


--
-- Name: reconcile_runs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.reconcile_runs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.reconcile_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: reminders; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.reminders (
    appointment_id bigint NOT NULL,
    offset_minutes integer NOT NULL,
    sent boolean NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT reminders_offset_minutes_check CHECK ((offset_minutes > 0))
);


--
-- Name: reschedules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.reschedules (
    patient_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    fingerprint text NOT NULL,
    appointment_id bigint NOT NULL,
    from_slot_id bigint NOT NULL,
    to_slot_id bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT reschedules_idempotency_key_check CHECK (((length(idempotency_key) >= 1) AND (length(idempotency_key) <= 64)))
);


--
-- Name: resources; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resources (
    id bigint NOT NULL,
    kind text NOT NULL,
    name text NOT NULL,
    department_id bigint,
    timezone text NOT NULL,
    attributes jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    active boolean DEFAULT true NOT NULL,
    CONSTRAINT resources_check CHECK (((kind <> 'doctor'::text) OR (department_id IS NOT NULL))),
    CONSTRAINT resources_kind_check CHECK ((kind = ANY (ARRAY['doctor'::text, 'room'::text, 'station'::text])))
);


--
-- Name: resources_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resources ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resources_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: revocation_marks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.revocation_marks (
    role text NOT NULL,
    subject text NOT NULL,
    valid_after timestamp with time zone NOT NULL,
    closed boolean DEFAULT false NOT NULL,
    CONSTRAINT revocation_marks_role_check CHECK ((role = ANY (ARRAY['patient'::text, 'doctor'::text, 'admin'::text]))),
    CONSTRAINT revocation_marks_subject_check CHECK (((length(subject) >= 1) AND (length(subject) <= 200)))
);


--
-- Name: river_job; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_job (
    id bigint NOT NULL,
    state public.river_job_state DEFAULT 'available'::public.river_job_state NOT NULL,
    attempt smallint DEFAULT 0 NOT NULL,
    max_attempts smallint DEFAULT 25 NOT NULL,
    attempted_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finalized_at timestamp with time zone,
    scheduled_at timestamp with time zone DEFAULT now() NOT NULL,
    priority smallint DEFAULT 1 NOT NULL,
    args jsonb NOT NULL,
    attempted_by text[],
    errors jsonb[],
    kind text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    tags character varying(255)[] DEFAULT '{}'::character varying[] NOT NULL,
    unique_key bytea,
    unique_states bit(8),
    CONSTRAINT finalized_or_finalized_at_null CHECK ((((finalized_at IS NULL) AND (state <> ALL (ARRAY['cancelled'::public.river_job_state, 'completed'::public.river_job_state, 'discarded'::public.river_job_state]))) OR ((finalized_at IS NOT NULL) AND (state = ANY (ARRAY['cancelled'::public.river_job_state, 'completed'::public.river_job_state, 'discarded'::public.river_job_state]))))),
    CONSTRAINT kind_length CHECK (((char_length(kind) > 0) AND (char_length(kind) < 128))),
    CONSTRAINT max_attempts_is_positive CHECK ((max_attempts > 0)),
    CONSTRAINT priority_in_range CHECK (((priority >= 1) AND (priority <= 4))),
    CONSTRAINT queue_length CHECK (((char_length(queue) > 0) AND (char_length(queue) < 128)))
);


--
-- Name: river_job_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.river_job_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: river_job_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.river_job_id_seq OWNED BY public.river_job.id;


--
-- Name: river_leader; Type: TABLE; Schema: public; Owner: -
--

CREATE UNLOGGED TABLE public.river_leader (
    elected_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    leader_id text NOT NULL,
    name text DEFAULT 'default'::text NOT NULL,
    CONSTRAINT leader_id_length CHECK (((char_length(leader_id) > 0) AND (char_length(leader_id) < 128))),
    CONSTRAINT name_length CHECK ((name = 'default'::text))
);


--
-- Name: river_migration; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_migration (
    line text NOT NULL,
    version bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT line_length CHECK (((char_length(line) > 0) AND (char_length(line) < 128))),
    CONSTRAINT version_gte_1 CHECK ((version >= 1))
);


--
-- Name: river_notification; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_notification (
    id bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    payload text NOT NULL,
    topic text NOT NULL,
    CONSTRAINT topic_length CHECK (((length(topic) > 0) AND (length(topic) < 128)))
);


--
-- Name: river_notification_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.river_notification_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: river_notification_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.river_notification_id_seq OWNED BY public.river_notification.id;


--
-- Name: river_queue; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_queue (
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    paused_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: round_applications; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.round_applications (
    id bigint NOT NULL,
    round_id bigint NOT NULL,
    patient_id bigint NOT NULL,
    slot_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    fingerprint text NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    reason text,
    appointment_id bigint,
    created_at timestamp with time zone NOT NULL,
    decided_at timestamp with time zone,
    CONSTRAINT round_applications_check CHECK (((status <> 'ALLOCATED'::text) OR (appointment_id IS NOT NULL))),
    CONSTRAINT round_applications_idempotency_key_check CHECK (((length(idempotency_key) >= 1) AND (length(idempotency_key) <= 64))),
    CONSTRAINT round_applications_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'ALLOCATED'::text, 'REJECTED'::text])))
);


--
-- Name: round_applications_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.round_applications ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.round_applications_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: round_quotas; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.round_quotas (
    round_id bigint NOT NULL,
    patient_id bigint NOT NULL,
    used integer NOT NULL,
    quota integer NOT NULL,
    CONSTRAINT round_quotas_within_quota CHECK (((used >= 0) AND (used <= quota)))
);


--
-- Name: rounds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rounds (
    id bigint NOT NULL,
    name text NOT NULL,
    opens_at timestamp with time zone NOT NULL,
    closes_at timestamp with time zone NOT NULL,
    term_start timestamp with time zone NOT NULL,
    term_end timestamp with time zone NOT NULL,
    quota integer DEFAULT 1 NOT NULL,
    state text DEFAULT 'DRAFT'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT rounds_closes_after_opens CHECK ((closes_at > opens_at)),
    CONSTRAINT rounds_quota_check CHECK ((quota >= 1)),
    CONSTRAINT rounds_state_check CHECK ((state = ANY (ARRAY['DRAFT'::text, 'OPEN'::text, 'CLOSED'::text]))),
    CONSTRAINT rounds_term_check CHECK ((term_end > term_start))
);


--
-- Name: rounds_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.rounds ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.rounds_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: schedules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schedules (
    id bigint NOT NULL,
    resource_id bigint NOT NULL,
    weekdays smallint NOT NULL,
    start_time text NOT NULL,
    end_time text NOT NULL,
    slot_minutes integer NOT NULL,
    capacity integer NOT NULL,
    fee_cents bigint DEFAULT 0 NOT NULL,
    horizon_days integer DEFAULT 14 NOT NULL,
    opens_at_time text DEFAULT '07:00'::text NOT NULL,
    hold_minutes integer DEFAULT 15 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    reminders text,
    offer_minutes integer,
    end_date date,
    max_active integer,
    max_per_day integer,
    cancel_cutoff_hours integer,
    no_show_limit integer,
    no_show_block_days integer,
    generated_through date,
    CONSTRAINT schedules_capacity_check CHECK ((capacity > 0)),
    CONSTRAINT schedules_fee_cents_check CHECK ((fee_cents >= 0)),
    CONSTRAINT schedules_hold_minutes_check CHECK ((hold_minutes > 0)),
    CONSTRAINT schedules_horizon_days_check CHECK (((horizon_days >= 1) AND (horizon_days <= 366))),
    CONSTRAINT schedules_offer_minutes_check CHECK (((offer_minutes >= 1) AND (offer_minutes <= 1440))),
    CONSTRAINT schedules_slot_minutes_check CHECK (((slot_minutes >= 1) AND (slot_minutes <= 1440))),
    CONSTRAINT schedules_weekdays_check CHECK (((weekdays >= 1) AND (weekdays <= 127)))
);


--
-- Name: schedules_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.schedules ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.schedules_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: signin_failures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.signin_failures (
    scope text NOT NULL,
    day bigint NOT NULL,
    failures integer NOT NULL,
    CONSTRAINT signin_failures_failures_check CHECK ((failures >= 0))
);


--
-- Name: slots; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.slots (
    id bigint NOT NULL,
    resource_id bigint NOT NULL,
    schedule_id bigint,
    start_at timestamp with time zone NOT NULL,
    end_at timestamp with time zone NOT NULL,
    capacity integer NOT NULL,
    booked_count integer DEFAULT 0 NOT NULL,
    opens_at timestamp with time zone NOT NULL,
    status text DEFAULT 'OPEN'::text NOT NULL,
    fee_cents bigint DEFAULT 0 NOT NULL,
    hold_seconds integer DEFAULT 900 NOT NULL,
    round_id bigint,
    offer_pending integer DEFAULT 0 NOT NULL,
    closed_by bigint,
    CONSTRAINT slots_booked_within_capacity CHECK (((booked_count >= 0) AND (booked_count <= capacity))),
    CONSTRAINT slots_capacity_check CHECK ((capacity > 0)),
    CONSTRAINT slots_end_after_start CHECK ((end_at > start_at)),
    CONSTRAINT slots_fee_cents_check CHECK ((fee_cents >= 0)),
    CONSTRAINT slots_hold_seconds_check CHECK ((hold_seconds > 0)),
    CONSTRAINT slots_offer_pending_check CHECK (((offer_pending >= 0) AND (offer_pending <= booked_count))),
    CONSTRAINT slots_status_check CHECK ((status = ANY (ARRAY['OPEN'::text, 'CLOSED'::text])))
);


--
-- Name: slots_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.slots ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.slots_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: staff_signin_failures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staff_signin_failures (
    name_key text NOT NULL,
    failures integer NOT NULL,
    last_failure_at timestamp with time zone NOT NULL,
    locked_until timestamp with time zone,
    CONSTRAINT staff_signin_failures_check CHECK ((failures > 0))
);


--
-- Name: staff_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staff_users (
    name text NOT NULL,
    password_hash text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    role text DEFAULT 'admin'::text NOT NULL,
    doctor_id bigint,
    totp_sealed bytea,
    totp_seal_key integer DEFAULT 0 NOT NULL,
    totp_last_step bigint DEFAULT 0 NOT NULL,
    disabled_at timestamp with time zone,
    CONSTRAINT staff_users_doctor_check CHECK (((role = 'doctor'::text) = (doctor_id IS NOT NULL))),
    CONSTRAINT staff_users_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'doctor'::text])))
);


--
-- Name: suspensions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.suspensions (
    id bigint NOT NULL,
    resource_id bigint,
    from_at timestamp with time zone NOT NULL,
    to_at timestamp with time zone NOT NULL,
    reason text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    scope text DEFAULT 'doctor'::text NOT NULL,
    department_id bigint,
    lifted_at timestamp with time zone,
    CONSTRAINT suspensions_period_check CHECK ((to_at > from_at)),
    CONSTRAINT suspensions_scope_check CHECK ((scope = ANY (ARRAY['doctor'::text, 'department'::text, 'clinic'::text]))),
    CONSTRAINT suspensions_scope_target_check CHECK ((((scope = 'doctor'::text) AND (resource_id IS NOT NULL) AND (department_id IS NULL)) OR ((scope = 'department'::text) AND (department_id IS NOT NULL) AND (resource_id IS NULL)) OR ((scope = 'clinic'::text) AND (resource_id IS NULL) AND (department_id IS NULL))))
);


--
-- Name: suspensions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.suspensions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.suspensions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: waitlist_entries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.waitlist_entries (
    id bigint NOT NULL,
    patient_id bigint NOT NULL,
    doctor_id bigint,
    department_id bigint,
    from_at timestamp with time zone NOT NULL,
    to_at timestamp with time zone NOT NULL,
    part_of_day text NOT NULL,
    state text NOT NULL,
    appointment_id bigint,
    slot_id bigint,
    offer_expires_at timestamp with time zone,
    idempotency_key text NOT NULL,
    fingerprint text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT waitlist_entries_check CHECK (((doctor_id IS NULL) <> (department_id IS NULL))),
    CONSTRAINT waitlist_entries_check1 CHECK (((state <> 'OFFERED'::text) OR (appointment_id IS NOT NULL))),
    CONSTRAINT waitlist_entries_idempotency_key_check CHECK (((length(idempotency_key) >= 1) AND (length(idempotency_key) <= 64))),
    CONSTRAINT waitlist_entries_part_of_day_check CHECK ((part_of_day = ANY (ARRAY['morning'::text, 'afternoon'::text, 'any'::text]))),
    CONSTRAINT waitlist_entries_state_check CHECK ((state = ANY (ARRAY['WAITING'::text, 'OFFERED'::text, 'ACCEPTED'::text, 'DECLINED'::text, 'EXPIRED'::text, 'FULFILLED'::text, 'CANCELLED'::text, 'LAPSED'::text])))
);


--
-- Name: waitlist_entries_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.waitlist_entries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.waitlist_entries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: outbox_events id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox_events ALTER COLUMN id SET DEFAULT nextval('public.outbox_events_id_seq'::regclass);


--
-- Name: river_job id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_job ALTER COLUMN id SET DEFAULT nextval('public.river_job_id_seq'::regclass);


--
-- Name: river_notification id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_notification ALTER COLUMN id SET DEFAULT nextval('public.river_notification_id_seq'::regclass);


--
-- Data for Name: appointments; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.appointments OVERRIDING SYSTEM VALUE VALUES (1, 44, 1, 'BOOKED', 1, '2026-12-05 07:45:00+00', '2026-12-05 08:00:00+00', 'fixture-1-1', 'slot=44', NULL, '2026-12-04 19:28:10.110685+00', '2026-12-04 19:28:10.110685+00', NULL);
INSERT INTO public.appointments OVERRIDING SYSTEM VALUE VALUES (2, 46, 2, 'BOOKED', 1, '2026-12-05 08:15:00+00', '2026-12-05 08:30:00+00', 'fixture-1-2', 'slot=46', NULL, '2026-12-04 19:28:10.423847+00', '2026-12-04 19:28:10.423847+00', NULL);
INSERT INTO public.appointments OVERRIDING SYSTEM VALUE VALUES (3, 165, 1, 'BOOKED', 1, '2026-12-05 08:00:00+00', '2026-12-05 08:15:00+00', 'fixture-2-1', 'slot=165', NULL, '2026-12-04 19:28:10.742734+00', '2026-12-04 19:28:10.742734+00', NULL);
INSERT INTO public.appointments OVERRIDING SYSTEM VALUE VALUES (4, 167, 2, 'CANCELLED', 1, '2026-12-05 08:30:00+00', '2026-12-05 08:45:00+00', 'fixture-2-2', 'slot=167', NULL, '2026-12-04 19:28:11.03944+00', '2026-12-04 19:28:11.26618+00', NULL);


--
-- Data for Name: audit_log; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (1, '2026-12-04 19:28:09.519019+00', 'system', '-', 'department', 1, 'create', NULL, '{"name": "General practice"}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (2, '2026-12-04 19:28:09.520504+00', 'system', '-', 'department', 2, 'create', NULL, '{"name": "Cardiology"}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (3, '2026-12-04 19:28:09.520999+00', 'system', '-', 'department', 3, 'create', NULL, '{"name": "Dermatology"}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (4, '2026-12-04 19:28:09.521398+00', 'system', '-', 'department', 4, 'create', NULL, '{"name": "Paediatrics"}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (5, '2026-12-04 19:28:09.521784+00', 'system', '-', 'department', 5, 'create', NULL, '{"name": "Ophthalmology"}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (6, '2026-12-04 19:28:09.52218+00', 'system', '-', 'department', 6, 'create', NULL, '{"name": "Orthopaedics"}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (7, '2026-12-04 19:28:09.522588+00', 'system', '-', 'department', 7, 'create', NULL, '{"name": "ENT"}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (8, '2026-12-04 19:28:09.52295+00', 'system', '-', 'department', 8, 'create', NULL, '{"name": "Vaccination"}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (9, '2026-12-04 19:28:09.524057+00', 'system', '-', 'doctor', 1, 'create', NULL, '{"departmentId": 1}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (10, '2026-12-04 19:28:09.526378+00', 'system', '-', 'schedule', 1, 'create', NULL, '{"end": "18:00", "start": "08:00", "policy": {}, "endDate": "", "capacity": 1, "doctorId": 1, "weekdays": [0, 1, 2, 3, 4, 5, 6], "slotMinutes": 15}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (11, '2026-12-04 19:28:09.527127+00', 'system', '-', 'doctor', 2, 'create', NULL, '{"departmentId": 2}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (12, '2026-12-04 19:28:09.528082+00', 'system', '-', 'schedule', 2, 'create', NULL, '{"end": "18:00", "start": "08:00", "policy": {}, "endDate": "", "capacity": 1, "doctorId": 2, "weekdays": [0, 1, 2, 3, 4, 5, 6], "slotMinutes": 15}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (13, '2026-12-04 19:28:09.528742+00', 'system', '-', 'doctor', 3, 'create', NULL, '{"departmentId": 3}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (14, '2026-12-04 19:28:09.529673+00', 'system', '-', 'schedule', 3, 'create', NULL, '{"end": "18:00", "start": "08:00", "policy": {}, "endDate": "", "capacity": 1, "doctorId": 3, "weekdays": [0, 1, 2, 3, 4, 5, 6], "slotMinutes": 15}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (15, '2026-12-04 19:28:09.553126+00', 'system', '-', 'schedule', 1, 'generate-slots', NULL, '{"created": 360, "doctorId": 1}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (16, '2026-12-04 19:28:09.555657+00', 'system', '-', 'patient', 1, 'create', NULL, '{"id": 1}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (17, '2026-12-04 19:28:09.556444+00', 'system', '-', 'patient', 2, 'create', NULL, '{"id": 2}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (18, '2026-12-04 19:28:09.556895+00', 'system', '-', 'patient', 3, 'create', NULL, '{"id": 3}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (19, '2026-12-04 19:28:09.557307+00', 'system', '-', 'patient', 4, 'create', NULL, '{"id": 4}', 0);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (20, '2026-12-04 19:28:10.110685+00', 'patient', '1', 'appointment', 1, 'book', NULL, '{"slotId": 44, "status": "BOOKED", "patientId": 1}', 1);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (21, '2026-12-04 19:28:10.423847+00', 'patient', '2', 'appointment', 2, 'book', NULL, '{"slotId": 46, "status": "BOOKED", "patientId": 2}', 2);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (22, '2026-12-04 19:28:10.742734+00', 'patient', '1', 'appointment', 3, 'book', NULL, '{"slotId": 165, "status": "BOOKED", "patientId": 1}', 1);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (23, '2026-12-04 19:28:11.03944+00', 'patient', '2', 'appointment', 4, 'book', NULL, '{"slotId": 167, "status": "BOOKED", "patientId": 2}', 2);
INSERT INTO public.audit_log OVERRIDING SYSTEM VALUE VALUES (24, '2026-12-04 19:28:11.26618+00', 'patient', '2', 'appointment', 4, 'cancel', '{"slotId": 167, "status": "BOOKED", "patientId": 2}', '{"slotId": 167, "status": "CANCELLED", "patientId": 2}', 2);


--
-- Data for Name: calendar_tokens; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: clinic_policy; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.clinic_policy VALUES (1, 10, 3, 0, 0, 0);


--
-- Data for Name: clinic_settings; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.clinic_settings VALUES ('demo', 'true', '2026-12-04 19:28:09.51313+00');


--
-- Data for Name: data_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.data_keys VALUES (0, '\x44868a6e75505933932b1c3351a79b775a922eac370aa7ae82c1e0e575da8c4d', '2026-12-04 19:28:09.190404+00');
INSERT INTO public.data_keys VALUES (1, '\x010001a49aa2ecc06f6d99fdd29d6aedc59362f36c8871ec8cfe35b0ec5e4550e455759d3c44cfea74db121e425bce802839df', '2026-12-04 19:28:09.190617+00');


--
-- Data for Name: departments; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.departments OVERRIDING SYSTEM VALUE VALUES (1, 'General practice', '2026-12-04 19:28:09.518396+00');
INSERT INTO public.departments OVERRIDING SYSTEM VALUE VALUES (2, 'Cardiology', '2026-12-04 19:28:09.520284+00');
INSERT INTO public.departments OVERRIDING SYSTEM VALUE VALUES (3, 'Dermatology', '2026-12-04 19:28:09.520848+00');
INSERT INTO public.departments OVERRIDING SYSTEM VALUE VALUES (4, 'Paediatrics', '2026-12-04 19:28:09.521273+00');
INSERT INTO public.departments OVERRIDING SYSTEM VALUE VALUES (5, 'Ophthalmology', '2026-12-04 19:28:09.52166+00');
INSERT INTO public.departments OVERRIDING SYSTEM VALUE VALUES (6, 'Orthopaedics', '2026-12-04 19:28:09.522057+00');
INSERT INTO public.departments OVERRIDING SYSTEM VALUE VALUES (7, 'ENT', '2026-12-04 19:28:09.522473+00');
INSERT INTO public.departments OVERRIDING SYSTEM VALUE VALUES (8, 'Vaccination', '2026-12-04 19:28:09.522838+00');


--
-- Data for Name: goose_db_version; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.goose_db_version VALUES (1, 0, true, '2026-12-04 19:28:08.924649');
INSERT INTO public.goose_db_version VALUES (2, 1, true, '2026-12-04 19:28:08.937037');
INSERT INTO public.goose_db_version VALUES (3, 2, true, '2026-12-04 19:28:09.023526');
INSERT INTO public.goose_db_version VALUES (4, 3, true, '2026-12-04 19:28:09.060183');
INSERT INTO public.goose_db_version VALUES (5, 4, true, '2026-12-04 19:28:09.06913');
INSERT INTO public.goose_db_version VALUES (6, 5, true, '2026-12-04 19:28:09.103405');
INSERT INTO public.goose_db_version VALUES (7, 6, true, '2026-12-04 19:28:09.109446');
INSERT INTO public.goose_db_version VALUES (8, 9, true, '2026-12-04 19:28:09.112359');
INSERT INTO public.goose_db_version VALUES (9, 10, true, '2026-12-04 19:28:09.129749');
INSERT INTO public.goose_db_version VALUES (10, 12, true, '2026-12-04 19:28:09.130757');
INSERT INTO public.goose_db_version VALUES (11, 13, true, '2026-12-04 19:28:09.132143');
INSERT INTO public.goose_db_version VALUES (12, 14, true, '2026-12-04 19:28:09.156816');
INSERT INTO public.goose_db_version VALUES (13, 15, true, '2026-12-04 19:28:09.166039');
INSERT INTO public.goose_db_version VALUES (14, 16, true, '2026-12-04 19:28:09.168525');
INSERT INTO public.goose_db_version VALUES (15, 17, true, '2026-12-04 19:28:09.17518');
INSERT INTO public.goose_db_version VALUES (16, 18, true, '2026-12-04 19:28:09.1765');
INSERT INTO public.goose_db_version VALUES (17, 19, true, '2026-12-04 19:28:09.179911');
INSERT INTO public.goose_db_version VALUES (18, 20, true, '2026-12-04 19:28:09.182758');
INSERT INTO public.goose_db_version VALUES (19, 21, true, '2026-12-04 19:28:09.186066');


--
-- Data for Name: login_codes; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: outbox_events; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: patients; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.patients OVERRIDING SYSTEM VALUE VALUES (1, '2026-12-04 19:28:09.554958+00', '', true, '\x010001120fdfca3ea2bbbd27ca918a95954bb61fbb8e4084b212192dc64138e1a07f14da721f3fed06', '\x0100013f047493aeea4d1928fecf0cd6688d72b977c9157541f5af0144bb57a637dae1d44bfdb808ef3702', '\x0100017d7fd50758946fe2e233d3558b53a142a07fa68d878e32b82ed829ff1b6df914bf702d2d955110d23bcc1933f037b459', '\x06360cb98b9f03cab366d639ef1ffe21dec0d4e205155b9d443c1ce54d8644cf', '\xe71f858be6008e5dfc496e8b40f2fdda31d810576a494d1009a54882f4d138c3', 1, NULL);
INSERT INTO public.patients OVERRIDING SYSTEM VALUE VALUES (2, '2026-12-04 19:28:09.556194+00', '', true, '\x010001fc7e551b6159b5bc20058122b477bc3610f7abeee5486ebdfd37a5bdce7391bf1d35f6ed9301ff', '\x0100018c76f58e354cfd1cd9ece10f620133de848c01316195e5f6e630f49d55d9761d28b7c44d31a52456', '\x010001a8924f5f9ea3c968856bbdb074a55dcc2eec207f1bead4c44dfc7281966332d58770c6c8e8355ef07e36b09950763d90', '\x47705bfa1cf07ad8115578115b38503812524fc04e200688ddde876c9ef6b1ce', '\xd7e089f12871781e669255fae283c6018930a9e56640c3bfcfd50ad7f8c0df44', 1, NULL);
INSERT INTO public.patients OVERRIDING SYSTEM VALUE VALUES (3, '2026-12-04 19:28:09.556705+00', '', true, '\x0100012c959fdef98a266d2d6024b245cb55b734979097f4763cc91b831d7eab928571df6d5c', '\x010001770348b9d3be197365edb4d8b3e3a16b0d3135e83ec908154891153f359d074bc386521013ae5cd3', '\x01000176d659fd992c2afcbf940fbda1dfb864ee3d7d62d6eef12138c2c440d3d4e91f9e9e97ef16068d85cc1a74d1df541fdb', '\xb5f6642db2cf1002ba6d1523ca01cf525c92176627c632613768eb1acf577196', '\x792dfcc87c9c77ba13e5129a0b1c19d632054eb22962fe868be299d2d19c1932', 1, NULL);
INSERT INTO public.patients OVERRIDING SYSTEM VALUE VALUES (4, '2026-12-04 19:28:09.55714+00', '', true, '\x010001083a5d8b5b204af691666f28a56a82f4b6e3619e4cf414aad1ad62037636cc7300189d6f28ebc7', '\x0100014f7b755b50a370e912339da2d6975d19fcea9f762c5327dd27b00ae276dc08b77c8e4003feb6c83a', '\x010001d38dbceede2909fcccc6f029323cff80cb93afe722efb1d756ed8ba11940df3c9c5269dd2aa441c41db259561ea61abe', '\x996415c02391fded8a7835c3a0b4ed52d28299cdf54b901511eb6d4aac976d37', '\x46ebccd87137fd38e535e5c83f7be6edf15d73f841abbc48b9f6df1a502315e9', 1, NULL);


--
-- Data for Name: payment_conflicts; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: payments; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: reconcile_runs; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: reminders; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: reschedules; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: resources; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.resources OVERRIDING SYSTEM VALUE VALUES (1, 'doctor', 'Dr. Anh Martin 1', 1, 'Europe/Paris', '{}', '2026-12-04 19:28:09.523195+00', true);
INSERT INTO public.resources OVERRIDING SYSTEM VALUE VALUES (2, 'doctor', 'Dr. Camille Martin 2', 2, 'Europe/Paris', '{}', '2026-12-04 19:28:09.526897+00', true);
INSERT INTO public.resources OVERRIDING SYSTEM VALUE VALUES (3, 'doctor', 'Dr. Li Martin 3', 3, 'Europe/Paris', '{}', '2026-12-04 19:28:09.52852+00', true);


--
-- Data for Name: revocation_marks; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: river_job; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.river_job VALUES (1, 'completed', 1, 25, '2026-12-04 19:28:10.129733+00', '2026-12-04 19:28:10.115534+00', '2026-12-04 19:28:10.133666+00', '2026-12-04 19:28:10.115534+00', 1, '{"kind": "confirmation", "appointmentId": 1}', '{vm_2026_12_04T19_28_09_791872}', NULL, 'slotd.notify', '{}', 'notify', '{}', NULL, NULL);
INSERT INTO public.river_job VALUES (2, 'completed', 1, 25, '2026-12-04 19:28:10.455507+00', '2026-12-04 19:28:10.426764+00', '2026-12-04 19:28:10.462152+00', '2026-12-04 19:28:10.426764+00', 1, '{"kind": "confirmation", "appointmentId": 2}', '{vm_2026_12_04T19_28_09_791872}', NULL, 'slotd.notify', '{}', 'notify', '{}', NULL, NULL);
INSERT INTO public.river_job VALUES (3, 'completed', 1, 25, '2026-12-04 19:28:10.746912+00', '2026-12-04 19:28:10.742849+00', '2026-12-04 19:28:10.748639+00', '2026-12-04 19:28:10.742849+00', 1, '{"kind": "confirmation", "appointmentId": 3}', '{vm_2026_12_04T19_28_09_791872}', NULL, 'slotd.notify', '{}', 'notify', '{}', NULL, NULL);
INSERT INTO public.river_job VALUES (4, 'completed', 1, 25, '2026-12-04 19:28:11.042648+00', '2026-12-04 19:28:11.039534+00', '2026-12-04 19:28:11.068797+00', '2026-12-04 19:28:11.039534+00', 1, '{"kind": "confirmation", "appointmentId": 4}', '{vm_2026_12_04T19_28_09_791872}', NULL, 'slotd.notify', '{}', 'notify', '{}', NULL, NULL);
INSERT INTO public.river_job VALUES (5, 'completed', 1, 25, '2026-12-04 19:28:11.272788+00', '2026-12-04 19:28:11.270704+00', '2026-12-04 19:28:11.27414+00', '2026-12-04 19:28:11.270704+00', 1, '{"kind": "cancellation", "appointmentId": 4}', '{vm_2026_12_04T19_28_09_791872}', NULL, 'slotd.notify', '{}', 'notify', '{}', NULL, NULL);


--
-- Data for Name: river_leader; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: river_migration; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.river_migration VALUES ('main', 1, '2026-12-04 19:28:09.209852+00');
INSERT INTO public.river_migration VALUES ('main', 2, '2026-12-04 19:28:09.21806+00');
INSERT INTO public.river_migration VALUES ('main', 3, '2026-12-04 19:28:09.236378+00');
INSERT INTO public.river_migration VALUES ('main', 4, '2026-12-04 19:28:09.237347+00');
INSERT INTO public.river_migration VALUES ('main', 5, '2026-12-04 19:28:09.246658+00');
INSERT INTO public.river_migration VALUES ('main', 6, '2026-12-04 19:28:09.256947+00');
INSERT INTO public.river_migration VALUES ('main', 7, '2026-12-04 19:28:09.259114+00');
INSERT INTO public.river_migration VALUES ('main', 8, '2026-12-04 19:28:09.268513+00');


--
-- Data for Name: river_notification; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: river_queue; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.river_queue VALUES ('default', '2026-12-04 19:28:09.80111+00', '{}', NULL, '2026-12-04 19:28:09.80111+00');
INSERT INTO public.river_queue VALUES ('notify', '2026-12-04 19:28:09.803306+00', '{}', NULL, '2026-12-04 19:28:09.803306+00');


--
-- Data for Name: round_applications; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: round_quotas; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: rounds; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: schedules; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schedules OVERRIDING SYSTEM VALUE VALUES (1, 1, 127, '08:00', '18:00', 15, 1, 0, 3, '07:00', 15, '2026-12-04 19:28:09.524487+00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.schedules OVERRIDING SYSTEM VALUE VALUES (2, 2, 127, '08:00', '18:00', 15, 1, 0, 3, '07:00', 15, '2026-12-04 19:28:09.527432+00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.schedules OVERRIDING SYSTEM VALUE VALUES (3, 3, 127, '08:00', '18:00', 15, 1, 0, 3, '07:00', 15, '2026-12-04 19:28:09.529107+00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);


--
-- Data for Name: signin_failures; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: slots; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (1, 1, 1, '2026-12-04 07:00:00+00', '2026-12-04 07:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (2, 1, 1, '2026-12-04 07:15:00+00', '2026-12-04 07:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (3, 1, 1, '2026-12-04 07:30:00+00', '2026-12-04 07:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (4, 1, 1, '2026-12-04 07:45:00+00', '2026-12-04 08:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (5, 1, 1, '2026-12-04 08:00:00+00', '2026-12-04 08:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (6, 1, 1, '2026-12-04 08:15:00+00', '2026-12-04 08:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (7, 1, 1, '2026-12-04 08:30:00+00', '2026-12-04 08:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (8, 1, 1, '2026-12-04 08:45:00+00', '2026-12-04 09:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (9, 1, 1, '2026-12-04 09:00:00+00', '2026-12-04 09:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (10, 1, 1, '2026-12-04 09:15:00+00', '2026-12-04 09:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (11, 1, 1, '2026-12-04 09:30:00+00', '2026-12-04 09:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (12, 1, 1, '2026-12-04 09:45:00+00', '2026-12-04 10:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (13, 1, 1, '2026-12-04 10:00:00+00', '2026-12-04 10:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (14, 1, 1, '2026-12-04 10:15:00+00', '2026-12-04 10:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (15, 1, 1, '2026-12-04 10:30:00+00', '2026-12-04 10:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (16, 1, 1, '2026-12-04 10:45:00+00', '2026-12-04 11:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (17, 1, 1, '2026-12-04 11:00:00+00', '2026-12-04 11:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (18, 1, 1, '2026-12-04 11:15:00+00', '2026-12-04 11:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (19, 1, 1, '2026-12-04 11:30:00+00', '2026-12-04 11:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (20, 1, 1, '2026-12-04 11:45:00+00', '2026-12-04 12:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (21, 1, 1, '2026-12-04 12:00:00+00', '2026-12-04 12:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (22, 1, 1, '2026-12-04 12:15:00+00', '2026-12-04 12:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (23, 1, 1, '2026-12-04 12:30:00+00', '2026-12-04 12:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (24, 1, 1, '2026-12-04 12:45:00+00', '2026-12-04 13:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (25, 1, 1, '2026-12-04 13:00:00+00', '2026-12-04 13:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (26, 1, 1, '2026-12-04 13:15:00+00', '2026-12-04 13:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (27, 1, 1, '2026-12-04 13:30:00+00', '2026-12-04 13:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (28, 1, 1, '2026-12-04 13:45:00+00', '2026-12-04 14:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (29, 1, 1, '2026-12-04 14:00:00+00', '2026-12-04 14:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (30, 1, 1, '2026-12-04 14:15:00+00', '2026-12-04 14:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (31, 1, 1, '2026-12-04 14:30:00+00', '2026-12-04 14:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (32, 1, 1, '2026-12-04 14:45:00+00', '2026-12-04 15:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (33, 1, 1, '2026-12-04 15:00:00+00', '2026-12-04 15:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (34, 1, 1, '2026-12-04 15:15:00+00', '2026-12-04 15:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (35, 1, 1, '2026-12-04 15:30:00+00', '2026-12-04 15:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (36, 1, 1, '2026-12-04 15:45:00+00', '2026-12-04 16:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (37, 1, 1, '2026-12-04 16:00:00+00', '2026-12-04 16:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (38, 1, 1, '2026-12-04 16:15:00+00', '2026-12-04 16:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (39, 1, 1, '2026-12-04 16:30:00+00', '2026-12-04 16:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (40, 1, 1, '2026-12-04 16:45:00+00', '2026-12-04 17:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (41, 1, 1, '2026-12-05 07:00:00+00', '2026-12-05 07:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (42, 1, 1, '2026-12-05 07:15:00+00', '2026-12-05 07:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (43, 1, 1, '2026-12-05 07:30:00+00', '2026-12-05 07:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (45, 1, 1, '2026-12-05 08:00:00+00', '2026-12-05 08:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (47, 1, 1, '2026-12-05 08:30:00+00', '2026-12-05 08:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (48, 1, 1, '2026-12-05 08:45:00+00', '2026-12-05 09:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (49, 1, 1, '2026-12-05 09:00:00+00', '2026-12-05 09:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (50, 1, 1, '2026-12-05 09:15:00+00', '2026-12-05 09:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (51, 1, 1, '2026-12-05 09:30:00+00', '2026-12-05 09:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (52, 1, 1, '2026-12-05 09:45:00+00', '2026-12-05 10:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (53, 1, 1, '2026-12-05 10:00:00+00', '2026-12-05 10:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (54, 1, 1, '2026-12-05 10:15:00+00', '2026-12-05 10:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (55, 1, 1, '2026-12-05 10:30:00+00', '2026-12-05 10:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (56, 1, 1, '2026-12-05 10:45:00+00', '2026-12-05 11:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (57, 1, 1, '2026-12-05 11:00:00+00', '2026-12-05 11:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (58, 1, 1, '2026-12-05 11:15:00+00', '2026-12-05 11:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (59, 1, 1, '2026-12-05 11:30:00+00', '2026-12-05 11:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (60, 1, 1, '2026-12-05 11:45:00+00', '2026-12-05 12:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (61, 1, 1, '2026-12-05 12:00:00+00', '2026-12-05 12:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (62, 1, 1, '2026-12-05 12:15:00+00', '2026-12-05 12:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (63, 1, 1, '2026-12-05 12:30:00+00', '2026-12-05 12:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (64, 1, 1, '2026-12-05 12:45:00+00', '2026-12-05 13:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (65, 1, 1, '2026-12-05 13:00:00+00', '2026-12-05 13:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (66, 1, 1, '2026-12-05 13:15:00+00', '2026-12-05 13:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (67, 1, 1, '2026-12-05 13:30:00+00', '2026-12-05 13:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (68, 1, 1, '2026-12-05 13:45:00+00', '2026-12-05 14:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (69, 1, 1, '2026-12-05 14:00:00+00', '2026-12-05 14:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (70, 1, 1, '2026-12-05 14:15:00+00', '2026-12-05 14:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (46, 1, 1, '2026-12-05 08:15:00+00', '2026-12-05 08:30:00+00', 1, 1, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (71, 1, 1, '2026-12-05 14:30:00+00', '2026-12-05 14:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (72, 1, 1, '2026-12-05 14:45:00+00', '2026-12-05 15:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (73, 1, 1, '2026-12-05 15:00:00+00', '2026-12-05 15:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (74, 1, 1, '2026-12-05 15:15:00+00', '2026-12-05 15:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (75, 1, 1, '2026-12-05 15:30:00+00', '2026-12-05 15:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (76, 1, 1, '2026-12-05 15:45:00+00', '2026-12-05 16:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (77, 1, 1, '2026-12-05 16:00:00+00', '2026-12-05 16:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (78, 1, 1, '2026-12-05 16:15:00+00', '2026-12-05 16:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (79, 1, 1, '2026-12-05 16:30:00+00', '2026-12-05 16:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (80, 1, 1, '2026-12-05 16:45:00+00', '2026-12-05 17:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (81, 1, 1, '2026-12-06 07:00:00+00', '2026-12-06 07:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (82, 1, 1, '2026-12-06 07:15:00+00', '2026-12-06 07:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (83, 1, 1, '2026-12-06 07:30:00+00', '2026-12-06 07:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (84, 1, 1, '2026-12-06 07:45:00+00', '2026-12-06 08:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (85, 1, 1, '2026-12-06 08:00:00+00', '2026-12-06 08:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (86, 1, 1, '2026-12-06 08:15:00+00', '2026-12-06 08:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (87, 1, 1, '2026-12-06 08:30:00+00', '2026-12-06 08:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (88, 1, 1, '2026-12-06 08:45:00+00', '2026-12-06 09:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (89, 1, 1, '2026-12-06 09:00:00+00', '2026-12-06 09:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (90, 1, 1, '2026-12-06 09:15:00+00', '2026-12-06 09:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (91, 1, 1, '2026-12-06 09:30:00+00', '2026-12-06 09:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (92, 1, 1, '2026-12-06 09:45:00+00', '2026-12-06 10:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (93, 1, 1, '2026-12-06 10:00:00+00', '2026-12-06 10:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (94, 1, 1, '2026-12-06 10:15:00+00', '2026-12-06 10:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (95, 1, 1, '2026-12-06 10:30:00+00', '2026-12-06 10:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (96, 1, 1, '2026-12-06 10:45:00+00', '2026-12-06 11:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (97, 1, 1, '2026-12-06 11:00:00+00', '2026-12-06 11:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (98, 1, 1, '2026-12-06 11:15:00+00', '2026-12-06 11:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (99, 1, 1, '2026-12-06 11:30:00+00', '2026-12-06 11:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (100, 1, 1, '2026-12-06 11:45:00+00', '2026-12-06 12:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (101, 1, 1, '2026-12-06 12:00:00+00', '2026-12-06 12:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (102, 1, 1, '2026-12-06 12:15:00+00', '2026-12-06 12:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (103, 1, 1, '2026-12-06 12:30:00+00', '2026-12-06 12:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (104, 1, 1, '2026-12-06 12:45:00+00', '2026-12-06 13:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (105, 1, 1, '2026-12-06 13:00:00+00', '2026-12-06 13:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (106, 1, 1, '2026-12-06 13:15:00+00', '2026-12-06 13:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (107, 1, 1, '2026-12-06 13:30:00+00', '2026-12-06 13:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (108, 1, 1, '2026-12-06 13:45:00+00', '2026-12-06 14:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (109, 1, 1, '2026-12-06 14:00:00+00', '2026-12-06 14:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (110, 1, 1, '2026-12-06 14:15:00+00', '2026-12-06 14:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (111, 1, 1, '2026-12-06 14:30:00+00', '2026-12-06 14:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (112, 1, 1, '2026-12-06 14:45:00+00', '2026-12-06 15:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (113, 1, 1, '2026-12-06 15:00:00+00', '2026-12-06 15:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (114, 1, 1, '2026-12-06 15:15:00+00', '2026-12-06 15:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (115, 1, 1, '2026-12-06 15:30:00+00', '2026-12-06 15:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (116, 1, 1, '2026-12-06 15:45:00+00', '2026-12-06 16:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (117, 1, 1, '2026-12-06 16:00:00+00', '2026-12-06 16:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (118, 1, 1, '2026-12-06 16:15:00+00', '2026-12-06 16:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (119, 1, 1, '2026-12-06 16:30:00+00', '2026-12-06 16:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (120, 1, 1, '2026-12-06 16:45:00+00', '2026-12-06 17:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (121, 2, 2, '2026-12-04 07:00:00+00', '2026-12-04 07:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (122, 2, 2, '2026-12-04 07:15:00+00', '2026-12-04 07:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (123, 2, 2, '2026-12-04 07:30:00+00', '2026-12-04 07:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (124, 2, 2, '2026-12-04 07:45:00+00', '2026-12-04 08:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (125, 2, 2, '2026-12-04 08:00:00+00', '2026-12-04 08:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (126, 2, 2, '2026-12-04 08:15:00+00', '2026-12-04 08:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (127, 2, 2, '2026-12-04 08:30:00+00', '2026-12-04 08:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (128, 2, 2, '2026-12-04 08:45:00+00', '2026-12-04 09:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (129, 2, 2, '2026-12-04 09:00:00+00', '2026-12-04 09:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (130, 2, 2, '2026-12-04 09:15:00+00', '2026-12-04 09:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (131, 2, 2, '2026-12-04 09:30:00+00', '2026-12-04 09:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (132, 2, 2, '2026-12-04 09:45:00+00', '2026-12-04 10:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (133, 2, 2, '2026-12-04 10:00:00+00', '2026-12-04 10:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (134, 2, 2, '2026-12-04 10:15:00+00', '2026-12-04 10:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (135, 2, 2, '2026-12-04 10:30:00+00', '2026-12-04 10:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (136, 2, 2, '2026-12-04 10:45:00+00', '2026-12-04 11:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (137, 2, 2, '2026-12-04 11:00:00+00', '2026-12-04 11:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (138, 2, 2, '2026-12-04 11:15:00+00', '2026-12-04 11:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (139, 2, 2, '2026-12-04 11:30:00+00', '2026-12-04 11:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (140, 2, 2, '2026-12-04 11:45:00+00', '2026-12-04 12:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (141, 2, 2, '2026-12-04 12:00:00+00', '2026-12-04 12:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (142, 2, 2, '2026-12-04 12:15:00+00', '2026-12-04 12:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (143, 2, 2, '2026-12-04 12:30:00+00', '2026-12-04 12:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (144, 2, 2, '2026-12-04 12:45:00+00', '2026-12-04 13:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (145, 2, 2, '2026-12-04 13:00:00+00', '2026-12-04 13:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (146, 2, 2, '2026-12-04 13:15:00+00', '2026-12-04 13:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (147, 2, 2, '2026-12-04 13:30:00+00', '2026-12-04 13:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (148, 2, 2, '2026-12-04 13:45:00+00', '2026-12-04 14:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (149, 2, 2, '2026-12-04 14:00:00+00', '2026-12-04 14:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (150, 2, 2, '2026-12-04 14:15:00+00', '2026-12-04 14:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (151, 2, 2, '2026-12-04 14:30:00+00', '2026-12-04 14:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (152, 2, 2, '2026-12-04 14:45:00+00', '2026-12-04 15:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (153, 2, 2, '2026-12-04 15:00:00+00', '2026-12-04 15:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (154, 2, 2, '2026-12-04 15:15:00+00', '2026-12-04 15:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (155, 2, 2, '2026-12-04 15:30:00+00', '2026-12-04 15:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (156, 2, 2, '2026-12-04 15:45:00+00', '2026-12-04 16:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (157, 2, 2, '2026-12-04 16:00:00+00', '2026-12-04 16:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (158, 2, 2, '2026-12-04 16:15:00+00', '2026-12-04 16:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (159, 2, 2, '2026-12-04 16:30:00+00', '2026-12-04 16:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (160, 2, 2, '2026-12-04 16:45:00+00', '2026-12-04 17:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (161, 2, 2, '2026-12-05 07:00:00+00', '2026-12-05 07:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (162, 2, 2, '2026-12-05 07:15:00+00', '2026-12-05 07:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (163, 2, 2, '2026-12-05 07:30:00+00', '2026-12-05 07:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (164, 2, 2, '2026-12-05 07:45:00+00', '2026-12-05 08:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (166, 2, 2, '2026-12-05 08:15:00+00', '2026-12-05 08:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (168, 2, 2, '2026-12-05 08:45:00+00', '2026-12-05 09:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (169, 2, 2, '2026-12-05 09:00:00+00', '2026-12-05 09:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (170, 2, 2, '2026-12-05 09:15:00+00', '2026-12-05 09:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (171, 2, 2, '2026-12-05 09:30:00+00', '2026-12-05 09:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (172, 2, 2, '2026-12-05 09:45:00+00', '2026-12-05 10:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (173, 2, 2, '2026-12-05 10:00:00+00', '2026-12-05 10:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (174, 2, 2, '2026-12-05 10:15:00+00', '2026-12-05 10:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (175, 2, 2, '2026-12-05 10:30:00+00', '2026-12-05 10:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (176, 2, 2, '2026-12-05 10:45:00+00', '2026-12-05 11:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (177, 2, 2, '2026-12-05 11:00:00+00', '2026-12-05 11:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (178, 2, 2, '2026-12-05 11:15:00+00', '2026-12-05 11:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (179, 2, 2, '2026-12-05 11:30:00+00', '2026-12-05 11:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (180, 2, 2, '2026-12-05 11:45:00+00', '2026-12-05 12:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (181, 2, 2, '2026-12-05 12:00:00+00', '2026-12-05 12:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (182, 2, 2, '2026-12-05 12:15:00+00', '2026-12-05 12:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (183, 2, 2, '2026-12-05 12:30:00+00', '2026-12-05 12:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (184, 2, 2, '2026-12-05 12:45:00+00', '2026-12-05 13:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (185, 2, 2, '2026-12-05 13:00:00+00', '2026-12-05 13:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (186, 2, 2, '2026-12-05 13:15:00+00', '2026-12-05 13:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (187, 2, 2, '2026-12-05 13:30:00+00', '2026-12-05 13:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (188, 2, 2, '2026-12-05 13:45:00+00', '2026-12-05 14:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (189, 2, 2, '2026-12-05 14:00:00+00', '2026-12-05 14:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (190, 2, 2, '2026-12-05 14:15:00+00', '2026-12-05 14:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (191, 2, 2, '2026-12-05 14:30:00+00', '2026-12-05 14:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (192, 2, 2, '2026-12-05 14:45:00+00', '2026-12-05 15:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (193, 2, 2, '2026-12-05 15:00:00+00', '2026-12-05 15:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (194, 2, 2, '2026-12-05 15:15:00+00', '2026-12-05 15:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (195, 2, 2, '2026-12-05 15:30:00+00', '2026-12-05 15:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (196, 2, 2, '2026-12-05 15:45:00+00', '2026-12-05 16:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (197, 2, 2, '2026-12-05 16:00:00+00', '2026-12-05 16:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (198, 2, 2, '2026-12-05 16:15:00+00', '2026-12-05 16:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (199, 2, 2, '2026-12-05 16:30:00+00', '2026-12-05 16:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (200, 2, 2, '2026-12-05 16:45:00+00', '2026-12-05 17:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (201, 2, 2, '2026-12-06 07:00:00+00', '2026-12-06 07:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (202, 2, 2, '2026-12-06 07:15:00+00', '2026-12-06 07:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (203, 2, 2, '2026-12-06 07:30:00+00', '2026-12-06 07:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (204, 2, 2, '2026-12-06 07:45:00+00', '2026-12-06 08:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (205, 2, 2, '2026-12-06 08:00:00+00', '2026-12-06 08:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (206, 2, 2, '2026-12-06 08:15:00+00', '2026-12-06 08:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (207, 2, 2, '2026-12-06 08:30:00+00', '2026-12-06 08:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (208, 2, 2, '2026-12-06 08:45:00+00', '2026-12-06 09:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (209, 2, 2, '2026-12-06 09:00:00+00', '2026-12-06 09:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (210, 2, 2, '2026-12-06 09:15:00+00', '2026-12-06 09:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (167, 2, 2, '2026-12-05 08:30:00+00', '2026-12-05 08:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (211, 2, 2, '2026-12-06 09:30:00+00', '2026-12-06 09:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (212, 2, 2, '2026-12-06 09:45:00+00', '2026-12-06 10:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (213, 2, 2, '2026-12-06 10:00:00+00', '2026-12-06 10:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (214, 2, 2, '2026-12-06 10:15:00+00', '2026-12-06 10:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (215, 2, 2, '2026-12-06 10:30:00+00', '2026-12-06 10:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (216, 2, 2, '2026-12-06 10:45:00+00', '2026-12-06 11:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (217, 2, 2, '2026-12-06 11:00:00+00', '2026-12-06 11:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (218, 2, 2, '2026-12-06 11:15:00+00', '2026-12-06 11:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (219, 2, 2, '2026-12-06 11:30:00+00', '2026-12-06 11:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (220, 2, 2, '2026-12-06 11:45:00+00', '2026-12-06 12:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (221, 2, 2, '2026-12-06 12:00:00+00', '2026-12-06 12:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (222, 2, 2, '2026-12-06 12:15:00+00', '2026-12-06 12:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (223, 2, 2, '2026-12-06 12:30:00+00', '2026-12-06 12:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (224, 2, 2, '2026-12-06 12:45:00+00', '2026-12-06 13:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (225, 2, 2, '2026-12-06 13:00:00+00', '2026-12-06 13:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (226, 2, 2, '2026-12-06 13:15:00+00', '2026-12-06 13:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (227, 2, 2, '2026-12-06 13:30:00+00', '2026-12-06 13:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (228, 2, 2, '2026-12-06 13:45:00+00', '2026-12-06 14:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (229, 2, 2, '2026-12-06 14:00:00+00', '2026-12-06 14:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (230, 2, 2, '2026-12-06 14:15:00+00', '2026-12-06 14:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (231, 2, 2, '2026-12-06 14:30:00+00', '2026-12-06 14:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (232, 2, 2, '2026-12-06 14:45:00+00', '2026-12-06 15:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (233, 2, 2, '2026-12-06 15:00:00+00', '2026-12-06 15:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (234, 2, 2, '2026-12-06 15:15:00+00', '2026-12-06 15:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (235, 2, 2, '2026-12-06 15:30:00+00', '2026-12-06 15:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (236, 2, 2, '2026-12-06 15:45:00+00', '2026-12-06 16:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (237, 2, 2, '2026-12-06 16:00:00+00', '2026-12-06 16:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (238, 2, 2, '2026-12-06 16:15:00+00', '2026-12-06 16:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (239, 2, 2, '2026-12-06 16:30:00+00', '2026-12-06 16:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (240, 2, 2, '2026-12-06 16:45:00+00', '2026-12-06 17:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (241, 3, 3, '2026-12-04 07:00:00+00', '2026-12-04 07:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (242, 3, 3, '2026-12-04 07:15:00+00', '2026-12-04 07:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (243, 3, 3, '2026-12-04 07:30:00+00', '2026-12-04 07:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (244, 3, 3, '2026-12-04 07:45:00+00', '2026-12-04 08:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (245, 3, 3, '2026-12-04 08:00:00+00', '2026-12-04 08:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (246, 3, 3, '2026-12-04 08:15:00+00', '2026-12-04 08:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (247, 3, 3, '2026-12-04 08:30:00+00', '2026-12-04 08:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (248, 3, 3, '2026-12-04 08:45:00+00', '2026-12-04 09:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (249, 3, 3, '2026-12-04 09:00:00+00', '2026-12-04 09:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (250, 3, 3, '2026-12-04 09:15:00+00', '2026-12-04 09:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (251, 3, 3, '2026-12-04 09:30:00+00', '2026-12-04 09:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (252, 3, 3, '2026-12-04 09:45:00+00', '2026-12-04 10:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (253, 3, 3, '2026-12-04 10:00:00+00', '2026-12-04 10:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (254, 3, 3, '2026-12-04 10:15:00+00', '2026-12-04 10:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (255, 3, 3, '2026-12-04 10:30:00+00', '2026-12-04 10:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (256, 3, 3, '2026-12-04 10:45:00+00', '2026-12-04 11:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (257, 3, 3, '2026-12-04 11:00:00+00', '2026-12-04 11:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (258, 3, 3, '2026-12-04 11:15:00+00', '2026-12-04 11:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (259, 3, 3, '2026-12-04 11:30:00+00', '2026-12-04 11:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (260, 3, 3, '2026-12-04 11:45:00+00', '2026-12-04 12:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (261, 3, 3, '2026-12-04 12:00:00+00', '2026-12-04 12:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (262, 3, 3, '2026-12-04 12:15:00+00', '2026-12-04 12:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (263, 3, 3, '2026-12-04 12:30:00+00', '2026-12-04 12:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (264, 3, 3, '2026-12-04 12:45:00+00', '2026-12-04 13:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (265, 3, 3, '2026-12-04 13:00:00+00', '2026-12-04 13:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (266, 3, 3, '2026-12-04 13:15:00+00', '2026-12-04 13:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (267, 3, 3, '2026-12-04 13:30:00+00', '2026-12-04 13:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (268, 3, 3, '2026-12-04 13:45:00+00', '2026-12-04 14:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (269, 3, 3, '2026-12-04 14:00:00+00', '2026-12-04 14:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (270, 3, 3, '2026-12-04 14:15:00+00', '2026-12-04 14:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (271, 3, 3, '2026-12-04 14:30:00+00', '2026-12-04 14:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (272, 3, 3, '2026-12-04 14:45:00+00', '2026-12-04 15:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (273, 3, 3, '2026-12-04 15:00:00+00', '2026-12-04 15:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (274, 3, 3, '2026-12-04 15:15:00+00', '2026-12-04 15:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (275, 3, 3, '2026-12-04 15:30:00+00', '2026-12-04 15:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (276, 3, 3, '2026-12-04 15:45:00+00', '2026-12-04 16:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (277, 3, 3, '2026-12-04 16:00:00+00', '2026-12-04 16:15:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (278, 3, 3, '2026-12-04 16:15:00+00', '2026-12-04 16:30:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (279, 3, 3, '2026-12-04 16:30:00+00', '2026-12-04 16:45:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (280, 3, 3, '2026-12-04 16:45:00+00', '2026-12-04 17:00:00+00', 1, 0, '2026-12-01 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (281, 3, 3, '2026-12-05 07:00:00+00', '2026-12-05 07:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (282, 3, 3, '2026-12-05 07:15:00+00', '2026-12-05 07:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (283, 3, 3, '2026-12-05 07:30:00+00', '2026-12-05 07:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (284, 3, 3, '2026-12-05 07:45:00+00', '2026-12-05 08:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (285, 3, 3, '2026-12-05 08:00:00+00', '2026-12-05 08:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (286, 3, 3, '2026-12-05 08:15:00+00', '2026-12-05 08:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (287, 3, 3, '2026-12-05 08:30:00+00', '2026-12-05 08:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (288, 3, 3, '2026-12-05 08:45:00+00', '2026-12-05 09:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (289, 3, 3, '2026-12-05 09:00:00+00', '2026-12-05 09:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (290, 3, 3, '2026-12-05 09:15:00+00', '2026-12-05 09:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (291, 3, 3, '2026-12-05 09:30:00+00', '2026-12-05 09:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (292, 3, 3, '2026-12-05 09:45:00+00', '2026-12-05 10:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (293, 3, 3, '2026-12-05 10:00:00+00', '2026-12-05 10:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (294, 3, 3, '2026-12-05 10:15:00+00', '2026-12-05 10:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (295, 3, 3, '2026-12-05 10:30:00+00', '2026-12-05 10:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (296, 3, 3, '2026-12-05 10:45:00+00', '2026-12-05 11:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (297, 3, 3, '2026-12-05 11:00:00+00', '2026-12-05 11:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (298, 3, 3, '2026-12-05 11:15:00+00', '2026-12-05 11:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (299, 3, 3, '2026-12-05 11:30:00+00', '2026-12-05 11:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (300, 3, 3, '2026-12-05 11:45:00+00', '2026-12-05 12:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (301, 3, 3, '2026-12-05 12:00:00+00', '2026-12-05 12:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (302, 3, 3, '2026-12-05 12:15:00+00', '2026-12-05 12:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (303, 3, 3, '2026-12-05 12:30:00+00', '2026-12-05 12:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (304, 3, 3, '2026-12-05 12:45:00+00', '2026-12-05 13:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (305, 3, 3, '2026-12-05 13:00:00+00', '2026-12-05 13:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (306, 3, 3, '2026-12-05 13:15:00+00', '2026-12-05 13:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (307, 3, 3, '2026-12-05 13:30:00+00', '2026-12-05 13:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (308, 3, 3, '2026-12-05 13:45:00+00', '2026-12-05 14:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (309, 3, 3, '2026-12-05 14:00:00+00', '2026-12-05 14:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (310, 3, 3, '2026-12-05 14:15:00+00', '2026-12-05 14:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (311, 3, 3, '2026-12-05 14:30:00+00', '2026-12-05 14:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (312, 3, 3, '2026-12-05 14:45:00+00', '2026-12-05 15:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (313, 3, 3, '2026-12-05 15:00:00+00', '2026-12-05 15:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (314, 3, 3, '2026-12-05 15:15:00+00', '2026-12-05 15:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (315, 3, 3, '2026-12-05 15:30:00+00', '2026-12-05 15:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (316, 3, 3, '2026-12-05 15:45:00+00', '2026-12-05 16:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (317, 3, 3, '2026-12-05 16:00:00+00', '2026-12-05 16:15:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (318, 3, 3, '2026-12-05 16:15:00+00', '2026-12-05 16:30:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (319, 3, 3, '2026-12-05 16:30:00+00', '2026-12-05 16:45:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (320, 3, 3, '2026-12-05 16:45:00+00', '2026-12-05 17:00:00+00', 1, 0, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (321, 3, 3, '2026-12-06 07:00:00+00', '2026-12-06 07:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (322, 3, 3, '2026-12-06 07:15:00+00', '2026-12-06 07:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (323, 3, 3, '2026-12-06 07:30:00+00', '2026-12-06 07:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (324, 3, 3, '2026-12-06 07:45:00+00', '2026-12-06 08:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (325, 3, 3, '2026-12-06 08:00:00+00', '2026-12-06 08:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (326, 3, 3, '2026-12-06 08:15:00+00', '2026-12-06 08:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (327, 3, 3, '2026-12-06 08:30:00+00', '2026-12-06 08:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (328, 3, 3, '2026-12-06 08:45:00+00', '2026-12-06 09:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (329, 3, 3, '2026-12-06 09:00:00+00', '2026-12-06 09:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (330, 3, 3, '2026-12-06 09:15:00+00', '2026-12-06 09:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (331, 3, 3, '2026-12-06 09:30:00+00', '2026-12-06 09:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (332, 3, 3, '2026-12-06 09:45:00+00', '2026-12-06 10:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (333, 3, 3, '2026-12-06 10:00:00+00', '2026-12-06 10:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (334, 3, 3, '2026-12-06 10:15:00+00', '2026-12-06 10:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (335, 3, 3, '2026-12-06 10:30:00+00', '2026-12-06 10:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (336, 3, 3, '2026-12-06 10:45:00+00', '2026-12-06 11:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (337, 3, 3, '2026-12-06 11:00:00+00', '2026-12-06 11:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (338, 3, 3, '2026-12-06 11:15:00+00', '2026-12-06 11:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (339, 3, 3, '2026-12-06 11:30:00+00', '2026-12-06 11:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (340, 3, 3, '2026-12-06 11:45:00+00', '2026-12-06 12:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (341, 3, 3, '2026-12-06 12:00:00+00', '2026-12-06 12:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (342, 3, 3, '2026-12-06 12:15:00+00', '2026-12-06 12:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (343, 3, 3, '2026-12-06 12:30:00+00', '2026-12-06 12:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (344, 3, 3, '2026-12-06 12:45:00+00', '2026-12-06 13:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (345, 3, 3, '2026-12-06 13:00:00+00', '2026-12-06 13:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (346, 3, 3, '2026-12-06 13:15:00+00', '2026-12-06 13:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (347, 3, 3, '2026-12-06 13:30:00+00', '2026-12-06 13:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (348, 3, 3, '2026-12-06 13:45:00+00', '2026-12-06 14:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (349, 3, 3, '2026-12-06 14:00:00+00', '2026-12-06 14:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (350, 3, 3, '2026-12-06 14:15:00+00', '2026-12-06 14:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (351, 3, 3, '2026-12-06 14:30:00+00', '2026-12-06 14:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (352, 3, 3, '2026-12-06 14:45:00+00', '2026-12-06 15:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (353, 3, 3, '2026-12-06 15:00:00+00', '2026-12-06 15:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (354, 3, 3, '2026-12-06 15:15:00+00', '2026-12-06 15:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (355, 3, 3, '2026-12-06 15:30:00+00', '2026-12-06 15:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (356, 3, 3, '2026-12-06 15:45:00+00', '2026-12-06 16:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (357, 3, 3, '2026-12-06 16:00:00+00', '2026-12-06 16:15:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (358, 3, 3, '2026-12-06 16:15:00+00', '2026-12-06 16:30:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (359, 3, 3, '2026-12-06 16:30:00+00', '2026-12-06 16:45:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (360, 3, 3, '2026-12-06 16:45:00+00', '2026-12-06 17:00:00+00', 1, 0, '2026-12-03 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (44, 1, 1, '2026-12-05 07:45:00+00', '2026-12-05 08:00:00+00', 1, 1, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);
INSERT INTO public.slots OVERRIDING SYSTEM VALUE VALUES (165, 2, 2, '2026-12-05 08:00:00+00', '2026-12-05 08:15:00+00', 1, 1, '2026-12-02 06:00:00+00', 'OPEN', 0, 900, NULL, 0, NULL);


--
-- Data for Name: staff_signin_failures; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: staff_users; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: suspensions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: waitlist_entries; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Name: appointments_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.appointments_id_seq', 4, true);


--
-- Name: audit_log_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_log_id_seq', 24, true);


--
-- Name: departments_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.departments_id_seq', 8, true);


--
-- Name: goose_db_version_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.goose_db_version_id_seq', 19, true);


--
-- Name: login_codes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.login_codes_id_seq', 1, false);


--
-- Name: outbox_events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_events_id_seq', 1, false);


--
-- Name: patients_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.patients_id_seq', 4, true);


--
-- Name: payment_conflicts_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.payment_conflicts_id_seq', 1, false);


--
-- Name: payments_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.payments_id_seq', 1, false);


--
-- Name: reconcile_runs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.reconcile_runs_id_seq', 1, false);


--
-- Name: resources_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.resources_id_seq', 3, true);


--
-- Name: river_job_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.river_job_id_seq', 5, true);


--
-- Name: river_notification_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.river_notification_id_seq', 1, false);


--
-- Name: round_applications_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.round_applications_id_seq', 1, false);


--
-- Name: rounds_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.rounds_id_seq', 1, false);


--
-- Name: schedules_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.schedules_id_seq', 3, true);


--
-- Name: slots_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.slots_id_seq', 360, true);


--
-- Name: suspensions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.suspensions_id_seq', 1, false);


--
-- Name: waitlist_entries_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.waitlist_entries_id_seq', 1, false);


--
-- Name: appointments appointments_no_overlap; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_no_overlap EXCLUDE USING gist (patient_id WITH =, tstzrange(start_at, end_at) WITH &&) WHERE (((status = ANY (ARRAY['HELD'::text, 'BOOKED'::text])) AND (round_id IS NULL)));


--
-- Name: appointments appointments_patient_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_patient_key_key UNIQUE (patient_id, idempotency_key);


--
-- Name: appointments appointments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_pkey PRIMARY KEY (id);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: calendar_tokens calendar_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.calendar_tokens
    ADD CONSTRAINT calendar_tokens_pkey PRIMARY KEY (patient_id);


--
-- Name: calendar_tokens calendar_tokens_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.calendar_tokens
    ADD CONSTRAINT calendar_tokens_token_hash_key UNIQUE (token_hash);


--
-- Name: clinic_policy clinic_policy_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.clinic_policy
    ADD CONSTRAINT clinic_policy_pkey PRIMARY KEY (id);


--
-- Name: clinic_settings clinic_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.clinic_settings
    ADD CONSTRAINT clinic_settings_pkey PRIMARY KEY (name);


--
-- Name: data_keys data_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.data_keys
    ADD CONSTRAINT data_keys_pkey PRIMARY KEY (key_id);


--
-- Name: departments departments_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.departments
    ADD CONSTRAINT departments_name_key UNIQUE (name);


--
-- Name: departments departments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.departments
    ADD CONSTRAINT departments_pkey PRIMARY KEY (id);


--
-- Name: goose_db_version goose_db_version_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.goose_db_version
    ADD CONSTRAINT goose_db_version_pkey PRIMARY KEY (id);


--
-- Name: login_codes login_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.login_codes
    ADD CONSTRAINT login_codes_pkey PRIMARY KEY (id);


--
-- Name: outbox_events outbox_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox_events
    ADD CONSTRAINT outbox_events_pkey PRIMARY KEY (id);


--
-- Name: patients patients_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.patients
    ADD CONSTRAINT patients_pkey PRIMARY KEY (id);


--
-- Name: payment_conflicts payment_conflicts_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payment_conflicts
    ADD CONSTRAINT payment_conflicts_key UNIQUE (trade_no, appointment_id, amount_cents);


--
-- Name: payment_conflicts payment_conflicts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payment_conflicts
    ADD CONSTRAINT payment_conflicts_pkey PRIMARY KEY (id);


--
-- Name: payments payments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payments
    ADD CONSTRAINT payments_pkey PRIMARY KEY (id);


--
-- Name: payments payments_trade_no_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payments
    ADD CONSTRAINT payments_trade_no_key UNIQUE (trade_no);


--
-- Name: reconcile_runs reconcile_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reconcile_runs
    ADD CONSTRAINT reconcile_runs_pkey PRIMARY KEY (id);


--
-- Name: reminders reminders_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reminders
    ADD CONSTRAINT reminders_pkey PRIMARY KEY (appointment_id, offset_minutes);


--
-- Name: reschedules reschedules_patient_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reschedules
    ADD CONSTRAINT reschedules_patient_key_key PRIMARY KEY (patient_id, idempotency_key);


--
-- Name: resources resources_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resources
    ADD CONSTRAINT resources_pkey PRIMARY KEY (id);


--
-- Name: revocation_marks revocation_marks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.revocation_marks
    ADD CONSTRAINT revocation_marks_pkey PRIMARY KEY (role, subject);


--
-- Name: river_job river_job_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_job
    ADD CONSTRAINT river_job_pkey PRIMARY KEY (id);


--
-- Name: river_leader river_leader_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_leader
    ADD CONSTRAINT river_leader_pkey PRIMARY KEY (name);


--
-- Name: river_migration river_migration_pkey1; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_migration
    ADD CONSTRAINT river_migration_pkey1 PRIMARY KEY (line, version);


--
-- Name: river_notification river_notification_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_notification
    ADD CONSTRAINT river_notification_pkey PRIMARY KEY (id);


--
-- Name: river_queue river_queue_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_queue
    ADD CONSTRAINT river_queue_pkey PRIMARY KEY (name);


--
-- Name: round_applications round_applications_patient_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.round_applications
    ADD CONSTRAINT round_applications_patient_key_key UNIQUE (patient_id, idempotency_key);


--
-- Name: round_applications round_applications_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.round_applications
    ADD CONSTRAINT round_applications_pkey PRIMARY KEY (id);


--
-- Name: round_quotas round_quotas_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.round_quotas
    ADD CONSTRAINT round_quotas_pkey PRIMARY KEY (round_id, patient_id);


--
-- Name: rounds rounds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rounds
    ADD CONSTRAINT rounds_pkey PRIMARY KEY (id);


--
-- Name: schedules schedules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (id);


--
-- Name: signin_failures signin_failures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signin_failures
    ADD CONSTRAINT signin_failures_pkey PRIMARY KEY (scope, day);


--
-- Name: slots slots_no_overlap; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.slots
    ADD CONSTRAINT slots_no_overlap EXCLUDE USING gist (resource_id WITH =, tstzrange(start_at, end_at) WITH &&) WHERE ((round_id IS NULL));


--
-- Name: slots slots_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.slots
    ADD CONSTRAINT slots_pkey PRIMARY KEY (id);


--
-- Name: slots slots_resource_start_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.slots
    ADD CONSTRAINT slots_resource_start_key UNIQUE (resource_id, start_at);


--
-- Name: staff_signin_failures staff_signin_failures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_signin_failures
    ADD CONSTRAINT staff_signin_failures_pkey PRIMARY KEY (name_key);


--
-- Name: staff_users staff_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_users
    ADD CONSTRAINT staff_users_pkey PRIMARY KEY (name);


--
-- Name: suspensions suspensions_period_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.suspensions
    ADD CONSTRAINT suspensions_period_key UNIQUE (resource_id, from_at, to_at);


--
-- Name: suspensions suspensions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.suspensions
    ADD CONSTRAINT suspensions_pkey PRIMARY KEY (id);


--
-- Name: waitlist_entries waitlist_entries_appointment_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.waitlist_entries
    ADD CONSTRAINT waitlist_entries_appointment_key UNIQUE (appointment_id);


--
-- Name: waitlist_entries waitlist_entries_patient_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.waitlist_entries
    ADD CONSTRAINT waitlist_entries_patient_key_key UNIQUE (patient_id, idempotency_key);


--
-- Name: waitlist_entries waitlist_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.waitlist_entries
    ADD CONSTRAINT waitlist_entries_pkey PRIMARY KEY (id);


--
-- Name: appointments_held_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_held_idx ON public.appointments USING btree (hold_expires_at) WHERE (status = 'HELD'::text);


--
-- Name: appointments_patient_active_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_patient_active_idx ON public.appointments USING btree (patient_id, start_at) WHERE ((status = ANY (ARRAY['HELD'::text, 'BOOKED'::text])) AND (round_id IS NULL));


--
-- Name: appointments_patient_noshow_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_patient_noshow_idx ON public.appointments USING btree (patient_id, start_at) WHERE (status = 'NO_SHOW'::text);


--
-- Name: appointments_round_active_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_round_active_idx ON public.appointments USING btree (round_id, patient_id) WHERE ((round_id IS NOT NULL) AND (status = ANY (ARRAY['HELD'::text, 'BOOKED'::text])));


--
-- Name: appointments_slot_held_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_slot_held_idx ON public.appointments USING btree (slot_id, hold_expires_at) WHERE (status = 'HELD'::text);


--
-- Name: appointments_slot_patient_active; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX appointments_slot_patient_active ON public.appointments USING btree (slot_id, patient_id) WHERE (status = ANY (ARRAY['HELD'::text, 'BOOKED'::text]));


--
-- Name: appointments_slot_queue_active; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX appointments_slot_queue_active ON public.appointments USING btree (slot_id, queue_no) WHERE (status = ANY (ARRAY['HELD'::text, 'BOOKED'::text]));


--
-- Name: audit_log_actor_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_actor_idx ON public.audit_log USING btree (actor_role, actor_id, id DESC);


--
-- Name: audit_log_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_at_idx ON public.audit_log USING btree (at);


--
-- Name: audit_log_entity_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_entity_idx ON public.audit_log USING btree (entity, entity_id, id DESC);


--
-- Name: audit_log_patient_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_patient_idx ON public.audit_log USING btree (patient_id, id DESC) WHERE (patient_id <> 0);


--
-- Name: login_codes_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX login_codes_created_idx ON public.login_codes USING btree (created_at);


--
-- Name: login_codes_phone_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX login_codes_phone_idx ON public.login_codes USING btree (phone_key, created_at);


--
-- Name: patients_email_index_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX patients_email_index_idx ON public.patients USING btree (email_index);


--
-- Name: patients_phone_index_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX patients_phone_index_key ON public.patients USING btree (phone_index);


--
-- Name: patients_seal_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX patients_seal_key_idx ON public.patients USING btree (seal_key);


--
-- Name: payments_appointment_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX payments_appointment_idx ON public.payments USING btree (appointment_id);


--
-- Name: payments_refund_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX payments_refund_idx ON public.payments USING btree (id DESC) WHERE (outcome = 'needs-refund'::text);


--
-- Name: resources_department_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resources_department_idx ON public.resources USING btree (department_id);


--
-- Name: revocation_marks_closed_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX revocation_marks_closed_idx ON public.revocation_marks USING btree (role, subject) WHERE closed;


--
-- Name: revocation_marks_valid_after_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX revocation_marks_valid_after_idx ON public.revocation_marks USING btree (valid_after);


--
-- Name: river_job_args_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_args_index ON public.river_job USING gin (args);


--
-- Name: river_job_kind; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_kind ON public.river_job USING btree (kind);


--
-- Name: river_job_metadata_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_metadata_index ON public.river_job USING gin (metadata);


--
-- Name: river_job_prioritized_fetching_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_prioritized_fetching_index ON public.river_job USING btree (state, queue, priority, scheduled_at, id);


--
-- Name: river_job_state_and_finalized_at_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_state_and_finalized_at_index ON public.river_job USING btree (state, finalized_at) WHERE (finalized_at IS NOT NULL);


--
-- Name: river_job_unique_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX river_job_unique_idx ON public.river_job USING btree (unique_key) WHERE ((unique_key IS NOT NULL) AND (unique_states IS NOT NULL) AND public.river_job_state_in_bitmask(unique_states, state));


--
-- Name: river_notification_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_notification_created_at_idx ON public.river_notification USING btree (created_at);


--
-- Name: river_notification_topic_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_notification_topic_id_idx ON public.river_notification USING btree (topic, id);


--
-- Name: round_applications_queue_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX round_applications_queue_idx ON public.round_applications USING btree (round_id, status, id);


--
-- Name: schedules_resource_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX schedules_resource_idx ON public.schedules USING btree (resource_id);


--
-- Name: signin_failures_day_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX signin_failures_day_idx ON public.signin_failures USING btree (day);


--
-- Name: slots_closed_by_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX slots_closed_by_idx ON public.slots USING btree (closed_by) WHERE (closed_by IS NOT NULL);


--
-- Name: slots_round_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX slots_round_idx ON public.slots USING btree (round_id) WHERE (round_id IS NOT NULL);


--
-- Name: staff_signin_failures_last_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX staff_signin_failures_last_idx ON public.staff_signin_failures USING btree (last_failure_at);


--
-- Name: suspensions_scope_period_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX suspensions_scope_period_key ON public.suspensions USING btree (scope, COALESCE(department_id, (0)::bigint), from_at, to_at) WHERE (scope <> 'doctor'::text);


--
-- Name: suspensions_standing_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX suspensions_standing_idx ON public.suspensions USING btree (from_at) WHERE (lifted_at IS NULL);


--
-- Name: waitlist_entries_department_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX waitlist_entries_department_live ON public.waitlist_entries USING btree (department_id, created_at, id) WHERE (state = ANY (ARRAY['WAITING'::text, 'OFFERED'::text]));


--
-- Name: waitlist_entries_doctor_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX waitlist_entries_doctor_live ON public.waitlist_entries USING btree (doctor_id, created_at, id) WHERE (state = ANY (ARRAY['WAITING'::text, 'OFFERED'::text]));


--
-- Name: waitlist_entries_patient; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX waitlist_entries_patient ON public.waitlist_entries USING btree (patient_id, id DESC);


--
-- Name: appointments appointments_round_quota_release; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER appointments_round_quota_release AFTER UPDATE OF status ON public.appointments FOR EACH ROW WHEN (((old.round_id IS NOT NULL) AND (old.status = ANY (ARRAY['HELD'::text, 'BOOKED'::text])) AND (new.status <> ALL (ARRAY['HELD'::text, 'BOOKED'::text])))) EXECUTE FUNCTION public.round_quota_release();


--
-- Name: appointments appointments_patient_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_patient_id_fkey FOREIGN KEY (patient_id) REFERENCES public.patients(id);


--
-- Name: calendar_tokens calendar_tokens_patient_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.calendar_tokens
    ADD CONSTRAINT calendar_tokens_patient_id_fkey FOREIGN KEY (patient_id) REFERENCES public.patients(id);


--
-- Name: payments payments_appointment_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payments
    ADD CONSTRAINT payments_appointment_id_fkey FOREIGN KEY (appointment_id) REFERENCES public.appointments(id);


--
-- Name: reminders reminders_appointment_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reminders
    ADD CONSTRAINT reminders_appointment_id_fkey FOREIGN KEY (appointment_id) REFERENCES public.appointments(id);


--
-- Name: reschedules reschedules_appointment_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reschedules
    ADD CONSTRAINT reschedules_appointment_id_fkey FOREIGN KEY (appointment_id) REFERENCES public.appointments(id);


--
-- Name: reschedules reschedules_from_slot_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reschedules
    ADD CONSTRAINT reschedules_from_slot_id_fkey FOREIGN KEY (from_slot_id) REFERENCES public.slots(id);


--
-- Name: reschedules reschedules_patient_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reschedules
    ADD CONSTRAINT reschedules_patient_id_fkey FOREIGN KEY (patient_id) REFERENCES public.patients(id);


--
-- Name: reschedules reschedules_to_slot_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reschedules
    ADD CONSTRAINT reschedules_to_slot_id_fkey FOREIGN KEY (to_slot_id) REFERENCES public.slots(id);


--
-- Name: resources resources_department_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resources
    ADD CONSTRAINT resources_department_id_fkey FOREIGN KEY (department_id) REFERENCES public.departments(id);


--
-- Name: round_applications round_applications_appointment_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.round_applications
    ADD CONSTRAINT round_applications_appointment_id_fkey FOREIGN KEY (appointment_id) REFERENCES public.appointments(id);


--
-- Name: round_applications round_applications_patient_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.round_applications
    ADD CONSTRAINT round_applications_patient_id_fkey FOREIGN KEY (patient_id) REFERENCES public.patients(id);


--
-- Name: round_applications round_applications_round_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.round_applications
    ADD CONSTRAINT round_applications_round_id_fkey FOREIGN KEY (round_id) REFERENCES public.rounds(id);


--
-- Name: round_applications round_applications_slot_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.round_applications
    ADD CONSTRAINT round_applications_slot_id_fkey FOREIGN KEY (slot_id) REFERENCES public.slots(id);


--
-- Name: round_quotas round_quotas_patient_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.round_quotas
    ADD CONSTRAINT round_quotas_patient_id_fkey FOREIGN KEY (patient_id) REFERENCES public.patients(id);


--
-- Name: schedules schedules_resource_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_resource_id_fkey FOREIGN KEY (resource_id) REFERENCES public.resources(id);


--
-- Name: slots slots_closed_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.slots
    ADD CONSTRAINT slots_closed_by_fkey FOREIGN KEY (closed_by) REFERENCES public.suspensions(id);


--
-- Name: slots slots_resource_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.slots
    ADD CONSTRAINT slots_resource_id_fkey FOREIGN KEY (resource_id) REFERENCES public.resources(id);


--
-- Name: slots slots_round_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.slots
    ADD CONSTRAINT slots_round_id_fkey FOREIGN KEY (round_id) REFERENCES public.rounds(id);


--
-- Name: slots slots_schedule_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.slots
    ADD CONSTRAINT slots_schedule_id_fkey FOREIGN KEY (schedule_id) REFERENCES public.schedules(id);


--
-- Name: staff_users staff_users_doctor_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_users
    ADD CONSTRAINT staff_users_doctor_id_fkey FOREIGN KEY (doctor_id) REFERENCES public.resources(id);


--
-- Name: suspensions suspensions_department_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.suspensions
    ADD CONSTRAINT suspensions_department_id_fkey FOREIGN KEY (department_id) REFERENCES public.departments(id);


--
-- Name: suspensions suspensions_resource_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.suspensions
    ADD CONSTRAINT suspensions_resource_id_fkey FOREIGN KEY (resource_id) REFERENCES public.resources(id);


--
-- Name: waitlist_entries waitlist_entries_appointment_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.waitlist_entries
    ADD CONSTRAINT waitlist_entries_appointment_id_fkey FOREIGN KEY (appointment_id) REFERENCES public.appointments(id);


--
-- Name: waitlist_entries waitlist_entries_department_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.waitlist_entries
    ADD CONSTRAINT waitlist_entries_department_id_fkey FOREIGN KEY (department_id) REFERENCES public.departments(id);


--
-- Name: waitlist_entries waitlist_entries_doctor_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.waitlist_entries
    ADD CONSTRAINT waitlist_entries_doctor_id_fkey FOREIGN KEY (doctor_id) REFERENCES public.resources(id);


--
-- Name: waitlist_entries waitlist_entries_patient_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.waitlist_entries
    ADD CONSTRAINT waitlist_entries_patient_id_fkey FOREIGN KEY (patient_id) REFERENCES public.patients(id);


--
-- Name: waitlist_entries waitlist_entries_slot_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.waitlist_entries
    ADD CONSTRAINT waitlist_entries_slot_id_fkey FOREIGN KEY (slot_id) REFERENCES public.slots(id);


--
-- PostgreSQL database dump complete
--



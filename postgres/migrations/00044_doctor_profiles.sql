-- +goose Up
-- Doctors' profiles: what patients read to choose one. The lists
-- (specialties, languages) are one item a line; the bounds are
-- booking/doctor_profile.go's, checked there first. The photo is a table
-- of its own so that listing doctors never reads its bytes.
ALTER TABLE resources
    ADD COLUMN title       text NOT NULL DEFAULT '' CONSTRAINT resources_title_check CHECK (char_length(title) <= 100),
    ADD COLUMN specialties text NOT NULL DEFAULT '' CONSTRAINT resources_specialties_check CHECK (char_length(specialties) <= 700),
    ADD COLUMN languages   text NOT NULL DEFAULT '' CONSTRAINT resources_languages_check CHECK (char_length(languages) <= 700),
    ADD COLUMN bio         text NOT NULL DEFAULT '' CONSTRAINT resources_bio_check CHECK (char_length(bio) <= 2000);
CREATE TABLE doctor_photos (
    doctor_id    bigint PRIMARY KEY REFERENCES resources (id),
    content_type text NOT NULL CONSTRAINT doctor_photos_type_check CHECK (content_type IN ('image/jpeg', 'image/png')),
    data         bytea NOT NULL CONSTRAINT doctor_photos_size_check CHECK (octet_length(data) <= 524288),
    etag         text NOT NULL,
    updated_at   timestamptz NOT NULL
);
-- The home page's search matches the start of a name, case-insensitively
-- (booking/search.go): a range read of these indexes.
CREATE INDEX resources_doctor_name_idx ON resources (lower(name) text_pattern_ops) WHERE kind = 'doctor';
CREATE INDEX services_name_lower_idx ON services (lower(name) text_pattern_ops);
CREATE INDEX departments_name_lower_idx ON departments (lower(name) text_pattern_ops);

-- +goose Down
DROP INDEX departments_name_lower_idx;
DROP INDEX services_name_lower_idx;
DROP INDEX resources_doctor_name_idx;
DROP TABLE doctor_photos;
ALTER TABLE resources DROP COLUMN bio, DROP COLUMN languages, DROP COLUMN specialties, DROP COLUMN title;

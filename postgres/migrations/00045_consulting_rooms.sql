-- +goose Up
-- A doctor's consulting room ("Room 3"): the waiting-room boards and a
-- called patient's page name it. The bound is booking/doctor_profile.go's,
-- checked there first; a constant default rewrites no row.
ALTER TABLE resources
    ADD COLUMN consulting_room text NOT NULL DEFAULT '' CONSTRAINT resources_consulting_room_check CHECK (char_length(consulting_room) <= 40);

-- +goose Down
ALTER TABLE resources DROP COLUMN consulting_room;

package booking

import (
	"strings"
	"unicode"
)

// MaskName is a patient's name as a waiting room's board shows it: enough
// for the person to know themselves, not enough for the room to know
// them. A name written in Han (or another script without spaces) keeps its
// first character, the family name, and masks each other one ("张三" is
// "张*", "欧阳娜娜" "欧***"); a name in words keeps the first word's
// initial and the last word's ("Marie Dupont" is "M. D***", "Nguyễn Văn
// An" is "N. A***"); one word keeps its initial ("Madonna" is "M***").
// An empty name is "***".
func MaskName(name string) string {
	words := strings.Fields(name)
	if len(words) == 0 {
		return "***"
	}
	if len(words) == 1 && unspaced(words[0]) {
		r := []rune(words[0])
		return string(r[0]) + strings.Repeat("*", max(len(r)-1, 1))
	}
	last := initial(words[len(words)-1]) + "***"
	if len(words) == 1 {
		return last
	}
	return initial(words[0]) + ". " + last
}

// unspaced says whether a word is written in a script that does not space
// its names (Han, kana, hangul): each character is a syllable.
func unspaced(w string) bool {
	for _, r := range w {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// initial is a word's first letter in upper case.
func initial(w string) string {
	for _, r := range w {
		if unicode.IsLetter(r) {
			return string(unicode.ToUpper(r))
		}
	}
	return string([]rune(w)[0])
}

package people

import (
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

func TestCheckEmail(t *testing.T) {
	long := strings.Repeat("a", MaxEmail-5) + "@x.mx"
	for _, c := range []struct {
		name, property, email string
		code, message         string // "" and "": accepted
	}{
		{"allowed characters", "Email", "a.b-c_d+e@x.mx", "", ""},
		{"as long as allowed", "Email", long, "", ""},
		{"characters not allowed", "Email", "ñoño é@x.mx", "InvalidUserName",
			"The email contains characters that are not allowed: 'ñ', ' ', 'é'. Allowed characters: " + AllowedEmailChars},
		{"one character too long", "Email", "b" + long, "MaximumLengthValidator",
			"'Email' debe ser menor o igual que 256 caracteres. Ingresó 257 caracteres."},
		{"too long, on the property given", "OwnerEmail", strings.Repeat("c", 40000), "MaximumLengthValidator",
			"'Owner Email' debe ser menor o igual que 256 caracteres. Ingresó 40000 caracteres."},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := CheckEmail(c.property, c.email)
			if c.code == "" {
				if f != nil {
					t.Fatalf("refused: %+v", f)
				}
				return
			}
			if f == nil || f.PropertyName != c.property || f.ErrorCode == nil || *f.ErrorCode != c.code || f.ErrorMessage != c.message {
				t.Fatalf("failure = %+v\nwant %s %s %q", f, c.property, c.code, c.message)
			}
		})
	}
}

func TestAddCreditsKeepsOrderAndRefusesNegative(t *testing.T) {
	var p storage.Person
	now := time.Unix(0, 0)
	for _, step := range []struct {
		ct     int
		amount int64
	}{{3, 5}, {1, 10}, {2, 7}, {1, -4}} {
		if err := AddCredits(&p, step.ct, step.amount, now); err != nil {
			t.Fatal(err)
		}
	}
	want := []storage.Balance{{CreditType: 1, Available: 6}, {CreditType: 2, Available: 7}, {CreditType: 3, Available: 5}}
	if len(p.Balances) != 3 || p.Balances[0] != want[0] || p.Balances[1] != want[1] || p.Balances[2] != want[2] {
		t.Fatalf("balances = %+v", p.Balances)
	}
	if err := AddCredits(&p, 2, -8, now); err == nil || p.Balances[1].Available != 7 {
		t.Fatalf("overdraw: err=%v balances=%+v", err, p.Balances)
	}
}

func TestPasswordProblemOrder(t *testing.T) {
	for pw, want := range map[string]string{
		"":          "PasswordTooShort",
		"Ab1#x":     "PasswordTooShort",
		"abcdef":    "PasswordRequiresUpper",
		"ÁBCDEF1#a": "",
		"ñandú#12":  "PasswordRequiresUpper", // ñ, á, ú are neither lower nor upper case
		"ABCDEF":    "PasswordRequiresLower",
		"Abcdef":    "PasswordRequiresDigit",
		"Abcde1":    "PasswordRequiresNonAlphanumeric",
		"Abcde1ñ":   "", // ñ counts as a character that is not a letter or digit
		"Abcde1 ":   "",
	} {
		if got := PasswordProblem(pw); got != want {
			t.Errorf("PasswordProblem(%q) = %q, want %q", pw, got, want)
		}
	}
	if f := CheckPassword("abc"); f == nil || f.AttemptedValue != nil || f.ErrorMessage != MsgPasswordRule {
		t.Fatalf("failure = %+v", f)
	}
}

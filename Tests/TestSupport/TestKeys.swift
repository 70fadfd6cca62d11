public import CashierCrypto

/// TEST KEYS — published here, so never use them for anything real.
///
/// Six distinct RSA-2048 keys for tests that need "a key" or "another key" (a forger's, a
/// stranger's). A fresh key costs about 0.4 s of CPU on this project's two-core machine, and a
/// full test run used to make dozens of them on Swift's cooperative threads at the same moment,
/// holding up every in-process server's handlers for tens of seconds.
public enum TestKeys {
    /// The `index`th test key (0 to 5): the same index gives the same key, different ones differ.
    public static func rsa(_ index: Int) -> RSAPrivateKey {
        // The PEMs below are well-formed; a failure here is a broken checkout.
        try! RSAPrivateKey(pemRepresentation: pems[index])
    }

    static let pems: [String] = [
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC88bgsJ3+YTmp+
        Pvrlh/soAPiPVQVvwYHVGTBtZ65g5Dh+yy4w65uiYZemaTnqE6sTdBx8uXbJTz5X
        +0zZqcAR4qU9z/2ymaCnB5/MLfEgIDT7UoRUEzMG4vm9cA0gKvHum2UElwGuuyiJ
        rPvQG4kVVIHHpPkXL23wkXByzxaYaRNBMgygCL5Y/p86zUtlcCj3TNjZtNfqgId8
        tu6TNlOq6wUE9yWPtRqTtF+AiWBwr6b9Yv6sPdzO7YctjGRcQCc1mmecdyVtftXj
        JdcO6CBM/Q13tPQGBQiY9QgAJd45s3dozofA5+GdP91qL0JnpYQo4Kqgqmna8Ay5
        gU160x8hAgMBAAECggEABK/jX3cIX4Ucd67ExxJhPNwPTnDvvla4y4pBLQmcJgur
        ShvstKp3lSbiHe7w0Jl1zjj8Zuyr4XENjR2vCZxAJ0Ft03N4KejNNy+Fe4ltOJyL
        6+sfXL2QL7zMMLKZpMFj+IUS07MSR90dM5MeuQoh061hvcveIQDcc5IMDdEM0LGJ
        qOefXOefhDLXNvhJoBYLQqo6HAyRA4JM9aBCMaJREPhb+s5+RMxE61IpvA26qFBN
        k3N9sBMuC+KPoMlmH6aHTFMQjC2JIWJLAw5oEbaTmaL7NrynQ16/hoN5RBlat9vp
        7iIhXZ8yn5Zxeop2uubKr3WdikPAElffgpSWN9DxwQKBgQDrFWY10LD0LI+8+yDK
        AhQyoGAjU7em9gLKoeIRQA5eAxAI8vOM5cN+phJb5psv4yya/EWYh+fWGt/d7NLt
        erCeLoqLyc4CyQ6s3dwLHGVL4EfDjXD6QfB9IpEjzRBXoKI/umuMDNJ/AQIYmwnH
        8IE55k25I4bMzjB0QVUMC6Q8kQKBgQDNwWI3VQiYy/fumapJMVZRUmZE0CrEhykQ
        wZpGuchiu/u+1FTCEiQK7WxPOr+B1nbSQMyY3/o0W7K4++hdKsIhFX3eYgUqNp4o
        GX8AFsix/Bt33FnI3n5Mq8+DvYRU7FiLF14QBCUX2Q1MWa+cqBw0zh67z9d3FfgH
        4kAMnqxBkQKBgQDOs/U4UnSVbm1AtOui0+sgjMWbqmvsQZo4w9i8ZD99yGGcDMu7
        0vdvb+Tqq70+gRjieflT4gQmzWCUiTz6FQwhOjkWKu6aomDl/PoTRveGnQFc4Aw7
        8CjeTruh6Bh7hEHFmUwhS9D2XVOTgRc7l6x41Zj3tlY71Pzj6+I1AjN6EQKBgDF4
        NnIRStDZ8ZF3dr7EUvmYcyhGWJIJ4TC7K6mnj2tVwTBfgsVqcSoDbZAbEuJXuxfQ
        JqD28QRXq7/YKUUFO8mSjkHClXVRznLbtnJCCBzq/XuzCg9Gl109zdXh4gg9Dwja
        JG57YKO8NvtNcPCcZrO3fyIu1aI3MPxMRJQELmxRAoGBAIlIRQUdowRtspUj/rpt
        oGapdVaasTnz4TB+FifSqwi2mTE0ljtN0E11wtyGMokqzTdWWbhDB/42TpBsPK8d
        bjNeG0Y6wT+ijPfr8X/Z48i1nh2oMV7WzggKhKVcD2sv1YOUAhj5ysiYjbbR6otF
        joEy6BjJlbEWBiMIBpXn16Qo
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCpIwHnbwoVur56
        WAgnTUKjQnesyRAPBcUQQiKBfJk1nE+lGQt4AyNAwswnBg9tkgNbZFlK199/Q5Rt
        O5CkNCxiLNYOrMQolXfOlZlnOY/1VR2WNySP+RZN0nIJGQ9cViQ3i6Qry1ZiYoRt
        zjPi9sq7BZ8I329rbI69rRT+rB3Nqz3wyizkWfGvbEvL1KBLvk8H2ndSt0dmhIQl
        4iUq6NwGvn1LSwONwsYFYYUO3pBHX2hrWeuLZr844fSO7jH7H3fUJi73KKlmxmyA
        mnFl6ANUV4lt+82q2m8Jf/zJsG2xa8vFEh3gxsrTOqmD6xsVnwphDFJKfZKvUUMU
        GTHbbtANAgMBAAECggEAKCWLGigdOLMu61Nh/BI2sxHf3j+LdEVmVUmdbyboJvWH
        YiTjuATmpUSXuNuTZeq2qUbUexNqlYaxAIyW9KL9tf/2f1064nc4DO0tkHb1WMJv
        V2yXXSU+yhIdx1MPdldsGVMoEM0fIBNKY9YCMulpjaLz8OM4S0NlTlh7F0g7esm7
        +EY4Z3whco8ua7eVC6+W13vCEwCiKY9LFBHunyIYfuXjY0vEvLGwHdDONgdtarBv
        6isaXZdnsRAgVmlQaZ5NiaeL7nmfPwUt+k6hvQtjuNNTafLlIqmvHMBLaKcjPi1k
        j3kdGoGQpxvMI76j5JSdv14nDhNr124pShedV/tH8QKBgQDYw9RkRVA6DFPmVsdJ
        lTjz3/PIkyYOl5Si7YPi+gzH/5CRr//hUwd4FC7pm89cqMMfj6WJC2B+57VtQd8s
        nDd5x08Qh2oryb1Ekht9DsXsVkJRb5gHk2XsSICgAz9/ztFvMKIffoFwOmXQtIB2
        SMbLNlANR5vsb1MzRzVZV2aiiwKBgQDHwD6C0R+Oc34EP9TH8mmq0kibaminS5a9
        a8MgZ3vpWyKPft7ITXPNp3Tk7mRCQ5uEhSigO+40EMxmBEsCKaxu4Lf07rK+xXJD
        yOYaqCWymm/brwfUN/4w5CiiEzgOg3kS+Kn6PjhEqmZWFgC8DMEJlZLj+pzDXUCZ
        xNgjTTAixwKBgQCXsVumHBeLt+rS6/Gk3eewSw5IVCmy1oMvDbZZFhHxuDhMq/UO
        k1NLxhwaYW5Y8sUyBg2a/To3NSHy5sEub9gmwcLj11AGerSYEwNnnfoGbUsVwFmN
        G6qdExPoZr1+TJamEEu0bIxapJNx3Y90t3Ne7JBS6sUETdfUr8V200JBBwKBgQCn
        z9g0ap/KOzi5NS77s6oWOoeJGcJGGfjPtgK97HJrP4cvanSbboZFVdOcqLJOASJc
        GMpiozahQyOU6TJi5MPaeqvQ99/u6U3vqI24A194RsqGkutO3KOOS3/fean0d3t1
        9rZGZ5M6DLXgyKdhVI2wEZrQMLEWZ/dnt7mlHqm77QKBgCSxhfs1qHgE/TvQkC+B
        207/3RvavMtjZOnIlpFMEQv9ncvEo9i5dN51ThlvcqZkrxixbcwdjvJBgKGGWVw7
        Fc3dvm1C6E8ZJaoSmON7U7odWuQX7khxwPv5YEN7mvR+jJFSJpysZCiaIBZUGLPb
        fQOLOvFtyLBh6AXPTzhfogAJ
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCz3OcH4TfSa/TV
        qH0zXCteDj5HmQGxiwrt9hUEmYxZH1sBglnk28FhcsuBxwBOYsLZvQOm1oQrHaOB
        BFdxgZbY/Lx2L6VL22tg/+Ulgt/dKcMHWcnGu0Ygz5obzeOoP25Oc6vwwisx6nZd
        yZudlbxtYoxIZ254O2wO9S8YEATkK8U+zpyFYP/gFG+plMs0ShkIeKe6N6GAY3yI
        A/0CGmm6v1U3iu4J2iqdpTPR88y7kAWSKbWJ9hXntblPTuLR/S1BoIGM2XDRX2uT
        uvNlKGLIkW5kuMNGl//pAq/ZDVk0WM6MOuVGSJIH9YIzUBPLxT/kXqY8pIcop9Ez
        X8ualLtLAgMBAAECggEAF7N4TjWDYZsQPEdjmC0BGffOhSjIbFjiK9FNm7mQIP5c
        w6olpl6+8NRrtMJAbBPfkUmy/X0vFW9maE3mJ/LnqdhEDV7h7UkQsUuHKpZAYahr
        JsDSMfnjl9dDe356DWWuZ3AerC8p+f3ncxxqAS4GEnP2AGSAzh8mciIk/oq92kMh
        vGAefknAgHW6UrLH5NsVwZyNnb6FBAezi5W4EMnHEh4cvBTARDk416i3YUxCGBq8
        L6aZ8mPglQkywgYsKb+pih0cWTfUx9xW/y8XoCJqjKz8EL0gNR9CGozpGnZxs4+B
        xeNcLjtN/xdeT144nbnOImkMvACuVwPFHfcoxX7CIQKBgQDcQ2EWmHb0fM8r87L5
        yLbBhdolz6grtyubkqdVBxzjYo6ko6htRk+InSf0WTqxr4yBx8SDt6qiEqYYRa+k
        EgVAPLZyWQmvaR5JGRs5ERap477DhCj9HBRpU160rgavces13CvvnNe1+6HOnHAU
        LvwW5NgBRllLjMHV+FGgVIeF5QKBgQDRC3+yyx0RId7aZ5dG7+8KTFzXOJPiUtxa
        R7uk0r1DHdEnUr5yRNxquHgPJwll2yML9fKa93kD3zShTDuUIASiYkWGaw+50+LI
        u6in+PG/FinMBtNVN7EGWHxjS0qZz6wp5hglow2bWsg3t7Q+0Ese6buNsMSVJBOg
        04hWS+ApbwKBgDN9LLzzdxs/8c38ceIiIVary4r7N/zAHNmJNsSRnRcqet3RxBWH
        UiBFXImqMiZHOzk7UZzY2nJ4mYsi/yQDcmbJynyAg9sVX5cG324/qGSecIGT62D/
        p2XXr1PdOoLYxnsYtMyWhXZtFC4QM8MEGLnhVP03TLh0dvtlyO8J04RhAoGBAMIk
        fL9PFbqwiyipZnxSHt2gl+SlvepGbDFIR4PG2FD54yIzHX5AZ7iRg6cG6Rp4jy7v
        hxXW2cP3ywg2JWrm5Ybt34X77kn197vXVMZTVCjUa5L5j9Gn/DdZfIQ3C5yXm1v6
        PtjNeriacjIU4Ugo6GtYRYBM9/VO4Q/PBOKoaxHvAoGACKXm2+g2m/Lf5LBz0dyL
        UQ+mjkkLmq06maibJ+E6+tV2A4i5vmuISi0zpmYhVNJjsWl3nl70s8krxQrrjZne
        N+JMRPHI+oVd2J03bQUpLxm4aPozAT+xqtylTCbkBXwqtm0Zmq2pLfQEHRDby+Kg
        ZGTsC1mYFRsGX+mT/zl50Hc=
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEugIBADANBgkqhkiG9w0BAQEFAASCBKQwggSgAgEAAoIBAQDDL8TpBxl/gMGE
        HMoA73KdVra9iob25oDnOVfZBrxEHPdpPT6TAl8tX7Nbfo0Iu4o4zL2+e/DCsYNz
        l4JESTMVI6cYFOFOucG1dUv38UDnqTR/Ox/OJVd2pu+whh4ccUxaAqIPwKQgurUL
        Kdu5NFdAQ1hSQqcKbIK3DudHl+7tFMkWg/fIBgeI+i8imvKC77uKVj7BFe1abWo8
        QNj8R0V02iPsw3oD6abPECJTK+gktTmsI5B5nYYjvnYVtH3tOuK6jUuGpR1klmc3
        4LXSTvM+wxtYH3sSJs9m5/vtZ5GZq4l3Zbqg4ub9exzKz3NtFkkpwJQMciatv16k
        8HTUAumhAgMBAAECgf89wd+L27M1pIeWRYWkxh59qfIoBqytckFW583j3T20T3X4
        1mf2G8oBkUYurNvy52PUlPN0UcLb107ARC/zazW+eolkFTc0sZGY2IQw7ySaJ+90
        UkC9+RKzeB5evBDK7w45bJvaYBmOQYUHAzeCYg05SBWp8Wzo32x8fzqubGQsnth5
        yZv18/Qiwg0v4Re7vUPFE9SnVjfkNHPtCuCq9ms04Bd0cPXk38IL4Yd0q0GxCskd
        8rypqNiIYhP8/K2SrxaONebVZHkuZmMvcTAOS5Zyreuaax1Vo7eJ6lHbJNN8jzec
        C3MrWerwJvOgTL45E0JhOhrRoi4Kr2YvvmpOhlUCgYEA/NNLbcfCAbdkoDJYGe2G
        14FxjkO5JdOGkv8c9JBmAkurEdT62Aa1iBbD2aucITmqcF02bqbDy7QD+dgHR+Fh
        bGR49RI5K3VMlNbIIFCtiXd5mWItXOmEdao7YPrnDxJoK3qhc4qvQA+2BZbFCyNn
        mjbyfXYRTqUGiEZimAEy+WsCgYEAxaMx8xfF35zEX7RuNXZV7xFLFnmsMkMxmsai
        7tGFVZbfHbD2ujadhBtqEdyp+Fi3GvpvLIjn7GWF/KXEY68NGezW1+VFDJDfumf0
        o7wnR9MVxpk4imV18OCaFu3gVEn+xb/jsd3xAastvD/jUIMlQg22bu+zBU6t9mFD
        RPXEcCMCgYB+j6tXtkK5JzwZMXqG6C+zG9pjlCVP+TaJyWmOR+a4yXZGg+5aS+l9
        yZ+bDFwpCbv3acIA3DxxcZj37hue8QUbBKTEUa4Kwjpm26ns+1YT1ZoqnUoGE+O6
        H1CAOLmIAvfgpA/ETi1yjSraW2IiNEP9n/n9sifxzYyalVlvrFH/JwKBgHihKD6o
        9vSKWe3UUiQ9iyv1ETCxqSGwk5lVvmMn7UsVYC9eMOntpezZUr9+QRw9Ad3sl2jG
        U1Cdks9nWlxBnyyAu41g+ek2j+fVxaMel5cmRrdGFBWc4gTZAhQWswKfe2q1ucN5
        pL2Q/sRU9mjQ8y/C8OP7V/hYUqP8L7PqkjCjAoGAUGZaG5/U8ibvgse1GKij6CDz
        LMliCVRNcp6THOlRlJ6QZuxN7gzBh/cMt4tiIkqe15EGaoJnXA0txuIHHqIUJKLQ
        G5VUv9+F+v4Kz7/xHo0422FP/1NhGz4Xanq9Moi6WKyh1FSD0bqiSztrvv+AYTL+
        Sz3bzk22vhNfCTHsr5w=
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCUTk/hTBD/QFGE
        0UWNVpe2QJ8Qi8Z8ZXCv26nwISzIZ7cCmtzkndoP+qyLVjYAQWe07HoTVuoafO75
        7/9qUlA12nz2mTKLaPFoulXpzXyrDobrcKR2sgiMJFHh0ogD2npkp0DTdzeICpqa
        gK6Z3bTmBKa4i3rfo7Lmt6orxU07lRsNX0fZygtWk4lWf7dWmfu6IgQh7w+USw+8
        f7OUhzaItPxa4j+jxzs3+qKitVd1/TNA+EghjhdDg6/z8isOcCCKE0ToybmmHNmN
        Atrd1+KlKx/5Ta6S7/CZchYd99pFqyK+MgkVud+zpyFsm8pil1rRZB0z+HApfXot
        5U4X1nbJAgMBAAECggEABaZGOaRbX+aIIchT5H5/AkQhLcD4r0+xHJ6LBque2vta
        H9e80IUuXm42S+BdfNeWVFCEqySuv5JQ4LV1UYGqo6M2dYbluOTnJa4L0d+gRIcQ
        bvAwMFjXxZiTGXMFjSmxwKXp7LxQLFxPYibC2qKVA++mAbuc00o3Pr3SS39P5z7N
        Suj/UhLt/5sOHVYDWA/RGHJCWt5rrw9VApk2B1doVWV8YpoxhYkC0cVrjCN5bwR2
        Dtkcx5XjY4IzLU4pkfRsG+iX/tDeHJmZphzPWy/i1kM3MHOx0vQnU3J/0MnmkcyN
        rhUhWMH40t8wjkEu1IY1QYgDKEzl7fwvWkJdFYVUEQKBgQDHksh3ZEqopsPg02vc
        0xdeVduW/w7QpE7Lf5zfK9sYDJCh1q91kRJLyJW8KH2v/Od+hMG94o2BanUNVSBO
        VtQ3d9fPX3Gw+DGpCKxNwm+0SbDhOlkur96t5/R97XVaWAIXyUEqXtzvI78x+K1r
        /KB+m9tXHi9LdWAkNIPri3dokQKBgQC+PMPdxyAKL2xbqe6d37ehQc1AMmvWnsVI
        vEWI2fzU285yJtwzj5halXN4p0G1bZXTBY5DqPDSek/uXB2da3fcRVU2FLZZlGTb
        BJi2A1TvV8sfEr5hZCYGxvT0xtBegT+Hhcz7umGBUONtOvzFfc498gaSwahBT9jJ
        Qh2vWNCGuQKBgBLmzQO5xPRqLv0ZKQsWFw2BNjX73CxYk3nkkTf10F9buUsKqT2K
        SuBQlBXpA9ZqLoamDi9syJgsO//SQygIQzspp4/la0AmkZV/08ndk3TQ0ebS/uVU
        FNQFtvtCRS4UTcZw8jIQH/6qNQ6Hje0/VPgIzOJYYoRUDpH/Q0tIvztxAoGAXcpp
        qtL8uejNnJe4XD+rMibWAduaDTM0AvtHsQQAQhWov+Dm2cjnDWn3hzm3DLLdli98
        B2Gocaz58YOa2jzc2E2aiFJH4PxniQ/IFpyn6GS5cTV1hWCx2s+Gf5PxsVY5syBF
        gqpOXko6BmV5sAipgSLtGLe/s4uhTwB40DWSgYkCgYEAsCqMZPtl8Lhk8aARXW+X
        AnnYh3GBd6wecBZVskCWVRh/1gASzNTo5zadSifpbhzcO+btKZXqnihulvrmxJ0G
        n9LpF0Qpixika1CtnMavnK2IDUpOeMjhfmJ67KGQ6TpL+spJVRyl+N3spaKLpz6z
        lXKSwSGobQ7vT7uOnM6kANk=
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCfCiTLqXBm1TbM
        OynfiZz8y7rDRZwV3gzuZ7v+mV6MK1AsGL6FIQoNr1lpnl38ubSeF8smyIf1MWtR
        8tAlkNDbEThl5qEE9DSEGhTCD06dJQv+UFk9TqwnY7sdNddd3cARXVMmbAUW+dMr
        rWFy/ZU7t1isA07+H/9yrGtcCwLIBYWpk/k5TBJjHMxZKcOHXWQvYnwOnnQ4UzC4
        HK6pzgZxQsBZ230PuHF/9CGqDba3CCmJsX7UiVQgZf+r5yMXxsBztBwMW+MVkXQB
        Gj3nhvWNusCuw9FmzI0KDt3iHadKVYhEFKLXtXyZJhKEAzuQmSEEdSE2h0KoDyts
        uyYvK4/BAgMBAAECggEAQ0C1XaA5pWqdQRD1vI8DYU0/nWq2vfKH0lrwfxHZDvoT
        7YnLKx3VFANmEolDImdfTwktwalEAPYUdXNx/Ki4ASNPj5vO1Hr2KDSlOYjijAZK
        A5Fzoz69Au0kB46ok4t9uHoX+uPr5RLg7xPi5Q8Bx95Y82h0w3bBfXsW7TXEx9MO
        qCOla0nKwQzJj0n7zVlZI3HQp0waBmV4Ww4Ltfbp2WHHOkgkWqomrhEu9uhro872
        SzPKj8jqewTtSu95nT23exQg/mmwRghwid5c7bj7rzLHoMqcQmqqJb/wM0G1GyO9
        vjlZool7Q9TZVXeY0ewiJ1NWI+TQFu87YL+wWmIMpwKBgQDcbfW163DHSVWBBZ/O
        pqi5lBxHGJbcz2nHH7TYSijhXX+rfJoQEX03DzVp8zp0E19yI/Hbyj9EWN7ATcga
        907IPuPv8sJeikCzLzZcq5yFX91776GcgFyE5AkMUrK2M8//FcgrHWeqILjgMt60
        PmCZ7e7c8bv3BsvtLcQO4UgShwKBgQC4tCPbn9rXIH0zQyM1WNFj4erhcxQJLDe3
        I2Re9RTi71Lz3il7MVZLlA5d2iU5HQq1zEFEY4No0H+n+RSQuiXVWKmT7X6AVtJ0
        W/nZIc/P9IhrlHM7V8ylKV7YIX081ftDPrjOD7F2gmubL5tm16aHv7PVwCoRAdwL
        gChIosM1dwKBgD/y8rbdYDGgt9qfjBZCyW5VZsLFgnb7AYAQVcHt+eAv5OsWUgfZ
        Ww9PLTrYopusRyNxBCi0ixhEBBOcPTJ9jvCPNkeVkQgmadDSIJ5P9y/GeRYMlkE2
        CCFRmsJld41eiLhDVHgVps53gcshVvTJp/LgUUzuII7w/NaJUXjTqLofAoGAfbAv
        +oMkU2JLcHfOXL4M9zBEOpip2LgbTeeqpKeYR/ld9I+IoMlpFNMyl5Eb5Wqq4B2X
        iGdDhC7lv7NS2E2j8zN7aiuh+smaOw5fze8hUDzyHGsPoyFTJE0rul3HsH9YlWD4
        N1kchS2o9hiGYox7SUMdqGY0+g/O4pCaWRtRRW8CgYBMjVxvzL9dR3IjDbo1AS8h
        h7x6+/VPyRxCeYXkjK0eB9VjOe8pG+yiuwWXC7M6yTvDls1Z+WaYeyfODkO3t+TI
        F98YNHXh2bdxRbJqQ4btEh1tp2dtqghew0X/BP+Ka+RtO73Kjqp9hd0TxnWGU2tr
        NYzGBu3t7DGUFUeXoGF0pQ==
        -----END PRIVATE KEY-----
        """,
    ]
}
